/**
 * `column IN (…)` within D1's 100 bound parameters per statement, whatever the list. Up to `inline`
 * distinct values are bound one by one: INLINE_VALUES in a statement with up to four lists and a
 * handful of other parameters (4 × 20 + 8 < 100), ONLY_LIST_VALUES in one whose only list it is. A
 * longer list goes as one JSON parameter that SQLite's json_each reads, which D1 counts as one more
 * row read per value.
 */
export const INLINE_VALUES = 20;
export const ONLY_LIST_VALUES = 90;

export function inList(
  column: string,
  values: readonly (string | number)[],
  inline = INLINE_VALUES,
): { sql: string; params: Array<string | number> } {
  const distinct = [...new Set(values)];
  if (distinct.length <= inline) return { sql: `${column} IN (${distinct.map(() => '?').join(', ')})`, params: distinct };
  return { sql: `${column} IN (SELECT value FROM json_each(?))`, params: [JSON.stringify(distinct)] };
}
