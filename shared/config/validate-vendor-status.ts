/** The targets' vendor status pages (`statusPage`): the distinct pages, and their checks in words a user can act on. */
import type { TargetConfig } from './types.ts';

/** Distinct status pages at most: each is one subrequest of the vendor status poller's alarm when it is polled. */
export const MAX_STATUS_PAGES = 10;

const VAR = /^\{[A-Z][A-Z0-9_]*\}$/;

/** The distinct status pages of a configuration, each with the targets naming it (in configuration order). */
export function statusPagesOf(targets: readonly TargetConfig[]): Array<{ page: string; targets: string[] }> {
  const pages = new Map<string, string[]>();
  for (const t of targets) if (t.statusPage !== undefined) pages.set(t.statusPage, [...(pages.get(t.statusPage) ?? []), t.id]);
  return [...pages].map(([page, ids]) => ({ page, targets: ids }));
}

function pageProblem(page: unknown): string | null {
  if (typeof page !== 'string') return 'must be a URL string';
  if (VAR.test(page)) return null;
  let u: URL;
  try {
    u = new URL(page);
  } catch {
    return `"${page.slice(0, 100)}" is not a URL (or {VAR})`;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'must be http or https';
  if (u.username || u.password) return 'must not carry credentials';
  if (u.search || u.hash) return "must be the page's address, without a query or fragment";
  if (/\/api\//.test(u.pathname))
    return `must be the page's address (like https://status.example.com), without /api/v2/…: the poll adds /api/v2/incidents.json`;
  return null;
}

export function statusPageProblems(targets: readonly TargetConfig[]): string[] {
  const p: string[] = [];
  for (const t of targets) {
    if (t.statusPage === undefined) continue;
    const problem = pageProblem(t.statusPage);
    if (problem) p.push(`target "${t.id}": statusPage ${problem}`);
  }
  const pages = statusPagesOf(targets);
  if (pages.length > MAX_STATUS_PAGES)
    p.push(`${pages.length} distinct statusPage values; at most ${MAX_STATUS_PAGES} (each is one subrequest of the poller's one alarm)`);
  return p;
}
