/** What a delivery's failure is, as the outbox records it and health publishes it. */

/**
 * What kind of failure a delivery met: all that is published (with the HTTP status). The message,
 * which can hold a receiver's reply or a URL that is itself the credential, goes only to the log,
 * redacted. `rejected`: the receiver refused the message itself (PagerDuty's 400), so it is not retried.
 */
export type DeliveryFailure = 'not_configured' | 'no_response' | 'http' | 'not_confirmed' | 'redirect' | 'send_email' | 'rejected';

export class DeliveryError extends Error {
  readonly status: number | null;
  readonly kind: DeliveryFailure;
  /** Sending the same message again cannot succeed: the outbox gives it up at once. */
  readonly permanent: boolean;
  constructor(kind: DeliveryFailure, message: string, status: number | null = null) {
    super(message);
    this.kind = kind;
    this.status = status;
    this.permanent = kind === 'rejected';
  }
}

export const DELIVERY_HEADER = 'x-observatory-delivery';
