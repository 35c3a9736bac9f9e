/**
 * Fast paths for the common token event: find the one JSON string the event is about by a fixed
 * pattern instead of building the whole object with JSON.parse. A protocol uses them only for events
 * whose shape it has fully checked and falls back to the full parse for anything else; tests check
 * that both paths read every recording identically.
 *
 * Why the patterns are sound: inside a JSON string every `"` is escaped, so a pattern with a quote
 * right after a key name (`"delta":{"content":"`) can only match the document's own structure.
 */
import type { OutputKind, StreamState } from '../stream-state.ts';

const BACKSLASH = 92;
export const RBRACE = 125;
export const RBRACKET = 93;

const LBRACE = 123;

function count(data: string, ch: string): number {
  let n = 0;
  for (let i = data.indexOf(ch); i !== -1; i = data.indexOf(ch, i + 1)) n++;
  return n;
}

/**
 * A cheap guard that the event is one whole JSON object: it starts with `{`, ends with `}`, and its
 * braces pair up in number (counted anywhere, with native indexOf). A cut-off event — the way servers
 * break their JSON — fails it and goes to the full parse: a prefix of an object that ends on a `}` has
 * closed fewer braces than it opened, unless that `}` closes the object itself, which closes every
 * bracket too. A token whose text holds unpaired braces only costs that event the slower path. Not a
 * full validator.
 */
export function wholeObject(data: string): boolean {
  if (data.charCodeAt(0) !== LBRACE) return false;
  let end = data.length - 1;
  while (end > 0 && data.charCodeAt(end) <= 32) end--;
  return data.charCodeAt(end) === RBRACE && count(data, '{') === count(data, '}');
}

/**
 * Index of the quote that closes the JSON string whose opening quote is at `open`, or -1, also when the string
 * holds what JSON does not allow (a control character, an unknown escape, a \u without four hex digits): the full
 * parse then says the event is unparsable, as it must.
 */
export function stringEnd(data: string, open: number): number {
  let i = open;
  for (;;) {
    i = data.indexOf('"', i + 1);
    if (i === -1) return -1;
    let backslashes = 0;
    for (let j = i - 1; data.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if ((backslashes & 1) === 0) return validJsonText(data, open + 1, i) ? i : -1;
  }
}

/** The characters a JSON escape may name after its backslash (besides `u` and its four hex digits). */
const ESCAPED = new Set([34, 92, 47, 98, 102, 110, 114, 116]); // " \ / b f n r t
const SPACE = 32;
const U = 117;

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/**
 * Whether data[from, to) is valid JSON string text: no control character, and each escape one JSON has. One
 * pass over a token's few characters; `to` is the index of the closing quote.
 */
export function validJsonText(data: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = data.charCodeAt(i);
    if (c < SPACE) return false;
    if (c !== BACKSLASH) continue;
    const e = data.charCodeAt(++i);
    if (e === U) {
      if (
        i + 4 >= to + 1 ||
        !isHex(data.charCodeAt(i + 1)) ||
        !isHex(data.charCodeAt(i + 2)) ||
        !isHex(data.charCodeAt(i + 3)) ||
        !isHex(data.charCodeAt(i + 4))
      )
        return false;
      i += 4;
    } else if (!ESCAPED.has(e)) return false;
  }
  return true;
}

/** Index of the opening quote of the string value right after `pattern` (which ends with that quote), or -1. */
export function stringAfter(data: string, pattern: string, from = 0): number {
  const p = data.indexOf(pattern, from);
  return p === -1 ? -1 : p + pattern.length - 1;
}

export const ANSWER = 0;
export const REASONING = 1;
export const TOOL = 2;
export type { OutputKind };

/** Records the JSON string data[open..close] (quotes included) as output; an empty string is no output. */
export function addSlice(s: StreamState, data: string, open: number, close: number, kind: OutputKind): void {
  s.sliceOpen = open;
  s.sliceClose = close;
  s.sliceKind = kind;
  if (close === open + 1) return;
  s.readHasToken = true;
  s.eventHasToken = true;
  if (kind !== REASONING) s.readHasAnswer = true;
  else s.reasoningStreamed = true;
  if (!s.collectText) return;
  const backslash = data.indexOf('\\', open);
  const text: string = backslash === -1 || backslash > close ? data.slice(open + 1, close) : JSON.parse(data.slice(open, close + 1));
  if (kind === ANSWER) s.answerText += text;
  else if (kind === REASONING) s.reasoningText += text;
  else s.toolText += text;
}

/** The common case of every fast path: one string after a pattern, closed by `}`. */
export function sliceBeforeBrace(data: string, pattern: string, s: StreamState, kind: OutputKind): boolean {
  if (!wholeObject(data)) return false;
  const open = stringAfter(data, pattern);
  if (open === -1) return false;
  const close = stringEnd(data, open);
  if (close === -1 || data.charCodeAt(close + 1) !== RBRACE) return false;
  addSlice(s, data, open, close, kind);
  return true;
}
