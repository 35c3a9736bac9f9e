/** The API's one error type: a status, a stable code and a message safe to show. */
export class ApiError extends Error {
  readonly status: 400 | 401 | 403 | 404 | 500 | 503;
  readonly code: string;
  constructor(status: ApiError['status'], code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const badRequest = (message: string) => new ApiError(400, 'bad_request', message);
