/** Pages of whole periods (db/periods.ts), as the rollups, the paired blocks and the time profiles are read. */
import { describe, expect, it } from 'vitest';
import { wholePeriodPage } from '../../workers/observatory/db/periods.ts';

/** Rows of periods 0..9, `per(p)` rows each, read as D1 would: in period order, at most `limit`. */
function table(per: (p: number) => number) {
  const rows = Array.from({ length: 10 }, (_, p) => Array.from({ length: per(p) }, (_, i) => ({ p, i }))).flat();
  const reads: number[] = [];
  const read = async (from: number, to: number, limit?: number) => {
    const out = rows.filter((r) => r.p >= from && r.p < to).slice(0, limit ?? Infinity);
    reads.push(out.length);
    return out;
  };
  return { rows, reads, read };
}

async function all(t: ReturnType<typeof table>, limit: number, rowsPerPeriod = 1) {
  const got: Array<{ p: number; i: number }> = [];
  const pages: number[][] = [];
  for (let from: number | null = 0; from !== null; ) {
    const page: { rows: Array<{ p: number; i: number }>; next: number | null } = await wholePeriodPage(
      t.read,
      (r) => r.p,
      from,
      10,
      limit,
      rowsPerPeriod,
    );
    pages.push([...new Set(page.rows.map((r) => r.p))]);
    got.push(...page.rows);
    from = page.next;
  }
  return { got, pages };
}

describe('pages of whole periods', () => {
  it('cuts between periods, never inside one, and every row comes once', async () => {
    const t = table(() => 3);
    const { got, pages } = await all(t, 10);
    expect(got).toEqual(t.rows);
    expect(pages).toEqual([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]);
  });

  it('gives a period larger than a page a page of its own, whole, and goes on after it', async () => {
    const t = table((p) => (p === 4 ? 25 : 2));
    const { got, pages } = await all(t, 10);
    expect(got).toEqual(t.rows);
    expect(pages).toContainEqual([4]);
  });

  it('with the rows a period holds, reads no row twice', async () => {
    const t = table(() => 3);
    await all(t, 10, 3);
    // Pages of 9 rows and one more to see the next period: 10, 10, 10, then the last 3.
    expect(t.reads).toEqual([10, 10, 10, 3]);
  });
});
