/**
 * RFC 4180 CSV of flat records: the union of their keys as the header, objects as JSON. Text that a
 * spreadsheet would run as a formula (starting with = + - @, a tab or a CR: a vendor's error text can)
 * gets a leading apostrophe, as OWASP recommends; numbers stay numbers.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value !== 'number' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(records: ReadonlyArray<object>, columns?: readonly string[]): string {
  const header = columns ?? [...new Set(records.flatMap((r) => Object.keys(r)))];
  const lines = [header.map(cell).join(',')];
  for (const r of records) lines.push(header.map((c) => cell((r as Record<string, unknown>)[c])).join(','));
  return lines.join('\r\n') + '\r\n';
}
