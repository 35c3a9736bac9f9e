/** What the site and its downloads carry from vendors' text cannot run: no script break-out, no spreadsheet formula. */
import { describe, expect, it } from 'vitest';
import { scriptJson } from '../../site/src/script-json.ts';
import { toCsv } from '../../shared/csv.ts';

describe('escaping', () => {
  it('JSON in a script element cannot close it, and reads back unchanged', () => {
    const value = { label: '</script><script>alert(1)</script> & <!-- \u2028' };
    const text = scriptJson(value);
    expect(text).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('CSV cells that a spreadsheet would run as a formula are neutralised; numbers stay numbers', () => {
    const csv = toCsv([
      { detail: '=HYPERLINK("http://x","y")', plus: '+1', at: '@SUM(A1)', tab: '\tx', minus: '-2+3', n: -1.5, ok: 'fine' },
    ]);
    const row = csv.split('\r\n')[1];
    expect(row).toBe(`"'=HYPERLINK(""http://x"",""y"")",'+1,'@SUM(A1),"'\tx",'-2+3,-1.5,fine`);
  });
});
