/**
 * The shape of the last token event a fast path accepted, kept per stream and matched against the
 * read's raw text: the whole event as it came (SSE field lines and blank line, or one NDJSON line),
 * cut into literal pieces around its token string and around the values of volatile keys (a sequence
 * number, an obfuscation pad, a timestamp, running usage counts). A later event that repeats every
 * literal piece, with scalars of the same kind in the holes, has the same structure, so its token is
 * read with a few native compares: no line framing, no slicing, no scan of the event for keys.
 *
 * Why it is sound: the accepted event passed the protocol's full fast-path checks, and the new one
 * differs only in the token string (found with an escape-aware scan) and in values the full
 * parse ignores or reads as usage (kept in `deferredUsage`, as the fast path always did). No hole may
 * hold a control character, so the event's lines are the ones the decoder would have found and its
 * JSON parses as the learned one did. Anything else —
 * another key, a finish reason, a cut-off event, an event split across reads — misses a piece and
 * goes the long way.
 *
 * Bounded: every compare is a slice of a piece's length; a hole is scanned once, up to its end; and
 * the piece before any hole holds a quote, so the quote searches of successive events cannot pile up.
 */
import { validJsonText } from './fast-path.ts';
import type { StreamState } from '../stream-state.ts';
import type { OutputKind } from '../stream-state.ts';
import { addSlice } from './fast-path.ts';

const TOKEN = 0;
/** An unsigned integer: a run of digits. */
const DIGITS = 1;
/** The text of a JSON string with no escape or control character in it; its closing quote starts the next piece. */
const PLAIN = 2;
type HoleKind = typeof TOKEN | typeof DIGITS | typeof PLAIN;

/** A key whose value may change from event to event: a plain string (an obfuscation pad) or digits (a count). */
export interface Volatile {
  /** The key with its quotes and colon: `"obfuscation":`. */
  key: string;
  kind: 'digits' | 'plain';
}

const ZERO = 48;
const NINE = 57;
const SPACE = 32;
const QUOTE = 34;
const BACKSLASH = 92;

function hasAt(text: string, piece: string, pos: number): boolean {
  return text.slice(pos, pos + piece.length) === piece;
}

/**
 * Index of the quote that ends the JSON string text starting at `from` (escapes skipped), or -1 at a
 * control character or the end. One pass in JS: a token is a few characters, and a native search
 * would cost more to call than to run.
 */
function tokenEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return validJsonText(text, from, i) ? i : -1;
    if (c < SPACE) return -1;
    if (c === BACKSLASH && (++i >= text.length || text.charCodeAt(i) < SPACE)) return -1;
  }
  return -1;
}

/** Index of the quote that ends a plain string's text starting at `from`, or -1 at an escape, a control character or the end. */
function plainEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i;
    if (c < SPACE || c === BACKSLASH) return -1;
  }
  return -1;
}

/**
 * Reads the event at text[pos] by the stream's template: returns the index after it, having added
 * its token, or -1, having changed nothing.
 */
export function takeByTemplate(text: string, pos: number, s: StreamState): number {
  const t = s.template;
  if (t === null) return -1;
  const { pieces, holes } = t;
  const start = pos;
  let open = -1;
  let close = -1;
  for (let i = 0; i < holes.length; i++) {
    const piece = pieces[i];
    if (!hasAt(text, piece, pos)) return -1;
    pos += piece.length;
    const hole = holes[i];
    if (hole === TOKEN) {
      open = pos - 1;
      close = tokenEnd(text, pos);
      if (close === -1) return -1;
      pos = close;
    } else if (hole === DIGITS) {
      const digitsFrom = pos;
      while (pos < text.length) {
        const c = text.charCodeAt(pos);
        if (c < ZERO || c > NINE) break;
        pos++;
      }
      if (pos === digitsFrom) return -1;
    } else {
      pos = plainEnd(text, pos);
      if (pos === -1) return -1;
    }
  }
  const last = pieces[holes.length];
  if (!hasAt(text, last, pos)) return -1;
  const after = pos + last.length;
  addSlice(s, text, open, close, t.kind);
  if (t.defersUsage) s.deferredUsage = text.slice(start + t.dataOffset, after - t.dataTrail);
  return after;
}

/** An accepted event as it lay in the read: text[start..end), its data value text[dataStart..dataEnd). */
export interface RawSpan {
  text: string;
  start: number;
  dataStart: number;
  dataEnd: number;
  end: number;
}

/**
 * Remembers an accepted event (its token string at data[open..close], quotes included) as the stream's
 * template. A volatile key whose value is not of its kind stays literal.
 */
export function learnTemplate(
  s: StreamState,
  span: RawSpan,
  open: number,
  close: number,
  kind: OutputKind,
  volatiles: readonly Volatile[] = [],
  defersUsage = false,
): void {
  const { text, start, dataStart, dataEnd, end } = span;
  const tokenOpen = dataStart + open;
  const tokenClose = dataStart + close;
  const cuts: { start: number; end: number; hole: HoleKind }[] = [{ start: tokenOpen + 1, end: tokenClose, hole: TOKEN }];
  for (const v of volatiles) {
    const at = text.indexOf(v.key, dataStart);
    if (at === -1 || at >= dataEnd || (at > tokenOpen && at < tokenClose)) continue;
    let from = at + v.key.length;
    while (text.charCodeAt(from) === SPACE) from++;
    let to = from;
    if (v.kind === 'digits') {
      while (to < dataEnd && text.charCodeAt(to) >= ZERO && text.charCodeAt(to) <= NINE) to++;
      if (to === from) continue;
      cuts.push({ start: from, end: to, hole: DIGITS });
    } else {
      if (text.charCodeAt(from) !== QUOTE) continue;
      from++;
      to = plainEnd(text, from);
      if (to === -1 || to >= dataEnd) continue;
      cuts.push({ start: from, end: to, hole: PLAIN });
    }
  }
  cuts.sort((a, b) => a.start - b.start);
  const pieces: string[] = [];
  const holes: HoleKind[] = [];
  let pos = start;
  for (const cut of cuts) {
    if (cut.start < pos) return; // overlapping cuts: a malformed shape is not worth a template
    pieces.push(own(text.slice(pos, cut.start)));
    holes.push(cut.hole);
    pos = cut.end;
  }
  pieces.push(own(text.slice(pos, end)));
  s.template = { kind, defersUsage, dataOffset: dataStart - start, dataTrail: end - dataEnd, pieces, holes };
}

/** A copy of its own, so that a piece neither keeps the whole read alive nor compares as a slice of it. */
function own(piece: string): string {
  return JSON.parse(JSON.stringify(piece)) as string;
}
