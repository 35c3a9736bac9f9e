/**
 * A public view's stored text: the answer of its route as JSON, with the elements of its one list (the rows a
 * request may narrow by region, target or prompt variant) one a line, each starting with its key fields in a
 * stated order. An unfiltered request is answered with the text as it is stored (no parse at all); a filtered
 * one keeps the lines whose leading keys match, with string operations only, so its CPU grows with the view's
 * lines and not with a JSON parse of every row.
 *
 *   {"metric":"ttft_ms",…,"groups":[
 *   {"region":"apac","target":"a",…},
 *   {"region":"apac","target":"b",…}
 *   ],"tail":…}
 */

/** A view's list: the field of the answer that holds it, and the key fields its elements start with, in order. */
export interface ViewList {
  field: string;
  keys: readonly string[];
}

export class ViewTextError extends Error {}

/**
 * The answer as view text. Each element of `doc[list.field]` must be an object whose first properties are
 * `list.keys` in that order with string values (ids: the configuration's, so never holding a quote); the field
 * is written last, so everything else of the answer comes before it.
 */
export function viewText(doc: Record<string, unknown>, list: ViewList): string {
  const items = doc[list.field];
  if (!Array.isArray(items)) throw new ViewTextError(`the view's list "${list.field}" is not an array`);
  const { [list.field]: _, ...head } = doc;
  const lines = items.map((item: Record<string, unknown>) => {
    const text = JSON.stringify(item);
    const keys = leadingKeys(text, list.keys.length);
    if (keys === null || list.keys.some((k, i) => item[k] !== keys[i]))
      throw new ViewTextError(`an element of "${list.field}" does not start with its keys ${list.keys.join(', ')}: ${text.slice(0, 120)}`);
    return text;
  });
  const headText = JSON.stringify(head);
  const open = `${headText.slice(0, -1)}${headText.length > 2 ? ',' : ''}${JSON.stringify(list.field)}:[`;
  return lines.length === 0 ? `${open}\n]}` : `${open}\n${lines.join(',\n')}\n]}`;
}

/**
 * The string values of a line's first `n` properties, read from its start: `{"region":"apac","target":"a",…`
 * gives ["apac", "a"]. Null when the line does not start that way (a value that is not a plain string).
 */
export function leadingKeys(line: string, n: number): string[] | null {
  const out = new Array<string>(n);
  return leadingKeysAt(line, 0, n, out) ? out : null;
}

/**
 * The same read in place, from text[start] (a line of a view, not cut out of it), into `out`: false when the line
 * does not start with `n` plain string values.
 */
function leadingKeysAt(text: string, start: number, n: number, out: string[]): boolean {
  if (text.charCodeAt(start) !== 123) return false; // {
  let at = start + 1;
  for (let k = 0; k < n; k++) {
    if (text.charCodeAt(at) !== 34) return false; // "
    const nameEnd = text.indexOf('"', at + 1);
    if (nameEnd < 0 || text.charCodeAt(nameEnd + 1) !== 58 || text.charCodeAt(nameEnd + 2) !== 34) return false; // :"
    const valueEnd = text.indexOf('"', nameEnd + 3);
    if (valueEnd < 0) return false;
    const value = text.slice(nameEnd + 3, valueEnd);
    if (value.includes('\\')) return false;
    out[k] = value;
    at = valueEnd + 1;
    const next = text.charCodeAt(at);
    if (next === 44)
      at++; // ,
    else if (next !== 125 || k < n - 1) return false; // }
  }
  return true;
}

/** Which elements a request keeps: for each key position, the values allowed (absent: any). */
export type KeyFilter = Array<ReadonlySet<string> | undefined>;

/**
 * The view text narrowed to the elements whose keys pass `keep` (given the element's leading key values). The
 * answer's head and everything else stay as stored.
 */
export function filterViewText(text: string, keyCount: number, keep: (keys: readonly string[]) => boolean): string {
  const open = text.indexOf('\n');
  const close = text.lastIndexOf('\n');
  if (open < 0 || close < open) throw new ViewTextError('not a view text: no line of its list');
  const kept: string[] = [];
  // One array for every line's keys (`keep` reads them, never keeps them); a line is cut out only when kept.
  const keys = new Array<string>(keyCount);
  let start = open + 1;
  while (start < close) {
    let end = text.indexOf('\n', start);
    if (end < 0 || end > close) end = close;
    if (!leadingKeysAt(text, start, keyCount, keys))
      throw new ViewTextError(
        `a line of the view does not start with its ${keyCount} keys: ${text.slice(start, Math.min(end, start + 120))}`,
      );
    // Each element line but the last ends with the comma that separates it from the next.
    if (keep(keys)) kept.push(text.slice(start, text.charCodeAt(end - 1) === 44 ? end - 1 : end));
    start = end + 1;
  }
  const head = text.slice(0, open + 1);
  const tail = text.slice(close);
  return kept.length === 0 ? `${head}${tail.slice(1)}` : `${head}${kept.join(',\n')}${tail}`;
}
