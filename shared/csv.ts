/**
 * RFC 4180 CSV of flat records: the union of their keys as the header, objects as JSON, `,` between
 * cells. Text that a spreadsheet would run as a formula (a vendor's error text can hold one) gets an
 * apostrophe before it, as OWASP recommends; numbers stay numbers.
 *
 * A spreadsheet splits a line on its locale's separator, not necessarily ours: `;` where the decimal
 * mark is a comma (most of Europe), a tab when pasted or read as TSV. Such a reader sees our quotes only
 * where one of its own cells begins, so inside our quoted cell every `;` and tab starts a cell of its
 * own, and every line break a row. A formula start is therefore neutralised wherever any of these
 * readers can begin a cell: at the cell's start and after each separator or line break, past any
 * spaces and quotes in between. A cell that holds `;` or a tab is quoted too, so a reader that does
 * honour our quoting keeps it whole.
 */

/** OWASP's formula starts: `=`, `+`, `-`, `@`, tab and carriage return. */
const FORMULA_START = '=+\\-@\\t\\r';
/** The field separators of the common spreadsheet locales (`,` `;` tab), and the line breaks that begin a row. */
const CELL_BREAKS = ',;\\t\\r\\n';
/**
 * Where some reader begins a cell (after a separator or line break, and at the cell's start), then spaces
 * and quotes, then a formula start: the apostrophe goes right before the start. Two passes, so that a
 * break at the very start (`\r=…`) is neutralised both as the cell's start and as a break.
 */
const FORMULA_AFTER_BREAK = new RegExp(`([${CELL_BREAKS}])([ "]*)(?=[${FORMULA_START}])`, 'g');
const FORMULA_AT_START = new RegExp(`^([ "]*)(?=[${FORMULA_START}])`);
/** A cell holding any of these is quoted: our separator, the other locales', a quote, a line break. */
const NEEDS_QUOTES = /[",;\t\r\n]/;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = (typeof value === 'object' ? JSON.stringify(value) : String(value))
    .replace(FORMULA_AFTER_BREAK, "$1$2'")
    .replace(FORMULA_AT_START, "$1'");
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(records: ReadonlyArray<object>, columns?: readonly string[]): string {
  const header = columns ?? [...new Set(records.flatMap((r) => Object.keys(r)))];
  const lines = [header.map(cell).join(',')];
  for (const r of records) lines.push(header.map((c) => cell((r as Record<string, unknown>)[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
