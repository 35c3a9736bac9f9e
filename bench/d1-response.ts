/** D1's response to one query: the rows as arrays under their columns (the ROWS_AND_COLUMNS form). */
export function d1ResponseText(columns: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  const cell = (v: unknown) => (v instanceof Uint8Array ? Array.from(v) : v);
  return JSON.stringify([{ results: { columns, rows: rows.map((r) => r.map(cell)) }, success: true, meta: { rows_read: rows.length } }]);
}

/** The rows workerd's D1 client makes of a response: parsed, then one object per row keyed by column (toArrayOfObjects). */
export function d1ClientRows(text: string): Array<Record<string, unknown>> {
  const [result] = JSON.parse(text) as Array<{ results: { columns: string[]; rows: unknown[][] } }>;
  const { columns, rows } = result.results;
  return rows.map((row) => Object.fromEntries(row.map((cell, i) => [columns[i], cell])));
}

/** SQLite's hex(): upper-case digits, two a byte. */
export const sqliteHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex').toUpperCase();

const hexOf = (n: number, digits: number) => n.toString(16).toUpperCase().padStart(digits, '0');
const textHex = (text: string) => {
  const bytes = new TextEncoder().encode(text);
  return hexOf(bytes.length, 2) + sqliteHex(bytes);
};

/**
 * What packedRowsCovering's SQL returns for stored rows of one table (shared/rollup/packed-rows.ts): per
 * period and region, its rows' keys and `columns` as one hex string (group_concat of hex(), in row order).
 */
export function packedRows(rows: ReadonlyArray<Record<string, unknown>>, period: 'hour' | 'day', columns: readonly string[]): unknown[][] {
  const groups = new Map<string, [string, string]>();
  for (const r of rows) {
    const id = `${r[period]}|${r.region}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = [String(r.region), '']));
    g[1] += textHex(String(r.target)) + textHex(String(r.prompt_variant)) + hexOf(Number(r.probes), 8) + hexOf(Number(r.successes), 8);
    for (const c of columns) g[1] += sqliteHex(r[c] as Uint8Array);
  }
  return [...groups.values()];
}

export const PACKED_COLUMNS = ['region', 'packed'] as const;
