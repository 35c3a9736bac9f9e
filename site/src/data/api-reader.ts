/**
 * How the site build reads the read API: a public view anonymously, as every reader gets it (no D1 row read,
 * `x-view` names it), and what no view holds (raw samples, and the parts not yet computed once) on the live path
 * with the read token. Every request's D1 rows read and URL are kept, so a reader (or a test) can check the numbers.
 */
import { forEachPage, pageUrl, type Paged } from '../../../shared/api-pages.ts';
import { ROWS_READ_HEADER } from '../../../shared/constants.ts';

export class SiteDataError extends Error {}

/** How long the build waits for one answer before it gives up, with what it asked. */
const ANSWER_TIMEOUT_MS = 30_000;

export class ApiReader {
  readonly requests: Record<string, string> = {};
  readonly rowsRead: Record<string, number> = {};
  /** Views the API had not built yet, answered by its live path instead (a new deployment's first build). */
  readonly missingViews: string[] = [];

  readonly base: string;
  private readonly fetchImpl: typeof fetch;
  private readonly readToken: string | undefined;

  constructor(base: string, fetchImpl: typeof fetch, readToken: string | undefined) {
    this.base = base;
    this.fetchImpl = fetchImpl;
    this.readToken = readToken;
  }

  /** `path` (from /api/v1/ on) of a route a public view answers, read as every anonymous reader reads it. */
  view<T>(name: string, path: string): Promise<T> {
    return this.get<T>(name, path, false);
  }

  /** `path` on the live path, with the read token and `no-cache`: fresh, outside the anonymous bounds and budget. */
  live<T>(name: string, path: string): Promise<T> {
    return this.get<T>(name, path, true);
  }

  /** Every row of a paged live read (`{ rows, next_cursor }`), page after page. */
  async liveRows<T>(name: string, path: string): Promise<T[]> {
    const rows: T[] = [];
    await forEachPage(
      (cursor) => this.live<{ rows: T[] } & Paged>(name, pageUrl(path, cursor)),
      (page) => {
        rows.push(...page.rows);
      },
    );
    return rows;
  }

  private async get<T>(name: string, path: string, withToken: boolean): Promise<T> {
    const url = `${this.base}/api/v1${path}`;
    this.requests[name] ??= url;
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
        headers: withToken && this.readToken ? { authorization: `Bearer ${this.readToken}`, 'cache-control': 'no-cache' } : {},
      });
    } catch (e) {
      throw new SiteDataError(
        `cannot reach the read API at ${url} (${(e as Error).message}); start it (npm run dev) or build from an export (SITE_DATA_FILE=…)`,
      );
    }
    if (!response.ok) throw new SiteDataError(`${url} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    if (!withToken && response.headers.get('x-view') === 'missing') this.missingViews.push(name);
    this.rowsRead[name] = (this.rowsRead[name] ?? 0) + Number(response.headers.get(ROWS_READ_HEADER) ?? 0);
    return (await response.json()) as T;
  }
}
