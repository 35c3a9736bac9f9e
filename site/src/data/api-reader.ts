/**
 * How the site build reads the read API: a public view anonymously, as every reader gets it (no D1 row read,
 * `x-view` names it), and what no view holds (raw samples, and the parts not yet computed once) on the live path
 * with the read token. Every request's D1 rows read and URL are kept, so a reader (or a test) can check the numbers.
 */
import {
  readPath,
  type AnswerOf,
  type Declared,
  type ParamsOf,
  type Part,
  type QueryOf,
  type ReadRoute,
} from '../../../shared/api-contract/routes.ts';
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

  /**
   * A read a public view answers (`route` of the API's table, shared/api-contract/routes.ts, with `query`), as every
   * anonymous reader reads it.
   */
  view<N extends ReadRoute>(name: string, route: N, query?: QueryOf<N>, params?: ParamsOf<N>): Reading<N> {
    return new Reading(() => this.get(name, readPath(route, query, params), false));
  }

  /** The same on the live path, with the read token and `no-cache`: fresh, outside the anonymous bounds and budget. */
  live<N extends ReadRoute>(name: string, route: N, query?: QueryOf<N>): Reading<N> {
    return new Reading(() => this.get(name, readPath(route, query), true));
  }

  /** The URL of a read, as a reader asks it (what `requests` records). */
  url<N extends ReadRoute>(route: N, query?: QueryOf<N>): string {
    return `${this.base}${readPath(route, query)}`;
  }

  private async get(name: string, path: string, withToken: boolean): Promise<unknown> {
    const url = `${this.base}${path}`;
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
    return response.json();
  }
}

/**
 * A read's answer: as the contract declares it (`answer`), or as the caller's own type of what it reads (`as`: `T`'s
 * fields must be of the types the route's schema declares for them).
 */
export class Reading<N extends ReadRoute> {
  private readonly read: () => Promise<unknown>;
  constructor(read: () => Promise<unknown>) {
    this.read = read;
  }
  answer(): Promise<Declared<AnswerOf<N>>> {
    return this.read() as Promise<Declared<AnswerOf<N>>>;
  }
  as<T extends Part<Declared<AnswerOf<N>>>>(): Promise<T> {
    return this.read() as Promise<T>;
  }
}
