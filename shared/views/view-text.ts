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
  const out: string[] = [];
  let at = 1; // past the opening brace
  for (let k = 0; k < n; k++) {
    if (line.charCodeAt(at) !== 34) return null; // "
    const nameEnd = line.indexOf('"', at + 1);
    if (nameEnd < 0 || line.charCodeAt(nameEnd + 1) !== 58 || line.charCodeAt(nameEnd + 2) !== 34) return null; // :"
    const valueEnd = line.indexOf('"', nameEnd + 3);
    if (valueEnd < 0) return null;
    const value = line.slice(nameEnd + 3, valueEnd);
    if (value.includes('\\')) return null;
    out.push(value);
    at = valueEnd + 1;
    const next = line.charCodeAt(at);
    if (next === 44)
      at++; // ,
    else if (next !== 125 || k < n - 1) return null; // }
  }
  return out;
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
  let start = open + 1;
  while (start < close) {
    let end = text.indexOf('\n', start);
    if (end < 0 || end > close) end = close;
    // Each element line but the last ends with the comma that separates it from the next.
    const line = text.charCodeAt(end - 1) === 44 ? text.slice(start, end - 1) : text.slice(start, end);
    const keys = leadingKeys(line, keyCount);
    if (keys === null) throw new ViewTextError(`a line of the view does not start with its ${keyCount} keys: ${line.slice(0, 120)}`);
    if (keep(keys)) kept.push(line);
    start = end + 1;
  }
  const head = text.slice(0, open + 1);
  const tail = text.slice(close);
  return kept.length === 0 ? `${head}${tail.slice(1)}` : `${head}${kept.join(',\n')}${tail}`;
}
