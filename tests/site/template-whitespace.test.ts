/**
 * The site's templates keep the spaces they mean. Astro's compact HTML (compressHTML, on by default and needed: the
 * compare page is over 250 KiB without it) drops whitespace holding a line break when it sits beside an inline element
 * or an expression: `over\n{range}` builds as "over2026-11-27", `</code>\nand` as "</code>and". The formatter (Biome,
 * biome.jsonc) breaks long lines anywhere, so each such break writes its space out: `{' '}` at the end of the line.
 * This test finds every break between text and an inline element or expression that does not.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const INLINE = 'a|abbr|b|cite|code|data|em|i|img|input|kbd|label|mark|output|q|s|samp|small|span|strong|sub|sup|time|u|var';
const opensInline = new RegExp(`^<(${INLINE})[\\s>/]`);
const closesInline = new RegExp(`(</(${INLINE})>|<(${INLINE})\\b[^<>]*/>)$`);
const endsInText = /[\p{L}\p{N}%)\]'"’–—×−+/*&-]$/u;
const startsWithText = /^[\p{L}\p{N}('"’–—×−+/&[-]/u;
/** An attribute on a line of its own, or the end of a tag: inside a tag, where a line break means nothing. */
const attribute = /^[\w:.-]+=|^\/?>|^\.\.\./;
/** The end of a line of code inside an expression. */
const codeEnd = /(;|\(|=>|&&|\|\||\?|\[|=)$/;

/** Each line break of a template (frontmatter, scripts and styles left out) that Astro would drop a meant space at. */
function droppedSpaces(source: string): Array<{ line: number; before: string; after: string }> {
  let body = source;
  let offset = 0;
  if (source.startsWith('---')) {
    const end = source.indexOf('\n---', 3) + 4;
    body = source.slice(end);
    offset = source.slice(0, end).split('\n').length - 1;
  }
  body = body.replace(/<(script|style)\b[\s\S]*?<\/\1>/g, (m) => '\n'.repeat(m.split('\n').length - 1));
  const lines = body.split('\n').map((l) => l.trim());
  const found: Array<{ line: number; before: string; after: string }> = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const [p, n] = [lines[i], lines[i + 1]];
    if (!p || !n || p.endsWith("{' '}") || n.startsWith("{' '}") || attribute.test(p) || attribute.test(n)) continue;
    const textThenInline = endsInText.test(p) && !closesInline.test(p) && !codeEnd.test(p) && (opensInline.test(n) || n.startsWith('{'));
    const inlineThenText = (closesInline.test(p) || (p.endsWith('}') && !p.endsWith(')}') && !p.startsWith('}'))) && startsWithText.test(n);
    if (textThenInline || inlineThenText) found.push({ line: offset + i + 1, before: p.slice(-60), after: n.slice(0, 60) });
  }
  return found;
}

function astroFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? astroFiles(join(dir, e.name)) : e.name.endsWith('.astro') ? [join(dir, e.name)] : [],
  );
}

describe("the templates' line breaks", () => {
  it('finds a dropped space: text, then an expression or an inline element on the next line', () => {
    expect(droppedSpaces('<p>\n  paired over\n  {range}.\n</p>')).toEqual([{ line: 2, before: 'paired over', after: '{range}.' }]);
    expect(droppedSpaces('<p>\n  reports (<code>Server-Timing</code>\n  and vendor headers)\n</p>')).toHaveLength(1);
    expect(droppedSpaces('<p>\n  Also as an\n  <a href="/feed.xml">Atom feed</a>\n</p>')).toHaveLength(1);
  });

  it('passes a space written out, a break between words, punctuation after an element, and attributes', () => {
    expect(droppedSpaces("<p>\n  paired over{' '}\n  {range}.\n</p>")).toEqual([]);
    expect(droppedSpaces('<p>\n  one line of text\n  and the next\n</p>')).toEqual([]);
    expect(droppedSpaces('<p>\n  <a href="/x">x</a>\n  : its severity\n</p>')).toEqual([]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template's source, as the test reads it
    expect(droppedSpaces('<Chart\n  title="TTFT"\n  svg={svg}\n  caption={`n=${n}`}\n/>')).toEqual([]);
    expect(droppedSpaces('---\nconst a = 1;\nconst b = `x`\n---\n<p>{a}</p>')).toEqual([]);
  });

  it('holds in every .astro file of the site', () => {
    const dir = new URL('../../site/src', import.meta.url).pathname;
    const files = astroFiles(dir);
    expect(files.length).toBeGreaterThan(20);
    const found = files.flatMap((f) =>
      droppedSpaces(readFileSync(f, 'utf8')).map((d) => `${f.slice(dir.length + 1)}:${d.line}: ${d.before} ⏎ ${d.after}`),
    );
    expect(found, "write {' '} at the end of each of these lines (or join them)").toEqual([]);
  });
});
