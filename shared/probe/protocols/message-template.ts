/**
 * The token template (token-template.ts) for AWS's binary event stream: the shape of the last token
 * message a fast path accepted, kept per stream and matched against each later message's bytes once
 * both its CRCs have checked. The headers must be the learned ones byte for byte (the same event, of the
 * same type), and the payload must repeat every literal piece of the learned one, with a JSON string in
 * the token's hole and a plain string in each volatile key's (Bedrock's `p` padding). Such a message's
 * token is read where it lies: its headers are not decoded, nor its payload, nor parsed, and nothing is
 * allocated unless the text is collected.
 *
 * Why it is sound: the learned message passed the protocol's full fast-path checks, and its payload was
 * ASCII, so its text and its bytes are indexed alike. A message that matches differs from it only in the
 * token, whose bytes are checked to be a JSON string's text (every escape a valid one, no control
 * character), and in values the full parse ignores. UTF-8 decoding neither makes an ASCII character out
 * of other bytes nor swallows one, so the payload's text is the learned pieces around the holes' text,
 * and it parses as the learned one did. Anything else — another header or event, another key, a raw
 * control character, a bad escape — misses a piece and goes the long way.
 *
 * Bounded: every piece is compared once, within the payload; a hole is scanned once, up to its end.
 */
import { CRC_BYTES, PRELUDE_BYTES } from '../aws-eventstream.ts';
import type { OutputKind, StreamState } from '../stream-state.ts';
import { addSlice } from './fast-path.ts';
import type { Volatile } from './token-template.ts';

const TOKEN = 0;
/** The text of a JSON string with no escape or control character in it; its closing quote starts the next piece. */
const PLAIN = 1;
type HoleKind = typeof TOKEN | typeof PLAIN;

/** Literal bytes, and the same packed four to a word (little-endian) for the compare: a word costs about a byte's compare. */
interface Piece {
  bytes: Uint8Array;
  words: Int32Array;
}

export interface MessageTemplate {
  kind: OutputKind;
  /** The headers' length; the first piece is the headers, byte for byte, and the payload's first piece. */
  headersLength: number;
  /** The message after its prelude: pieces[i] comes before holes[i]; the last piece ends the payload. */
  pieces: Piece[];
  holes: HoleKind[];
}

const SPACE = 32;
const QUOTE = 34;
const BACKSLASH = 92;
const U = 117;
const ASCII_END = 0x80;
/** 1 for the characters that may follow a backslash in a JSON string on their own, 2 for `u` (four hex digits follow). */
const ESCAPE = new Uint8Array(ASCII_END);
for (const c of '"\\/bfnrt') ESCAPE[c.charCodeAt(0)] = 1;
ESCAPE[U] = 2;
const HEX_DIGIT = new Uint8Array(ASCII_END);
for (const c of '0123456789abcdefABCDEF') HEX_DIGIT[c.charCodeAt(0)] = 1;
const UNICODE_ESCAPE_DIGITS = 4;

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

const u32 = (b: Uint8Array, at: number): number => ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;

const WORD_BYTES = 4;

function piece(bytes: Uint8Array): Piece {
  const words = new Int32Array(Math.floor(bytes.length / WORD_BYTES));
  for (let k = 0, i = 0; k < words.length; k++, i += WORD_BYTES)
    words[k] = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
  return { bytes, words };
}

/** b[at..] begins with the piece (the caller has checked that it fits). */
function same(b: Uint8Array, at: number, piece: Piece): boolean {
  const { bytes, words } = piece;
  let i = at;
  for (let k = 0; k < words.length; k++, i += WORD_BYTES)
    if ((b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) !== words[k]) return false;
  for (let j = i - at; j < bytes.length; j++, i++) if (b[i] !== bytes[j]) return false;
  return true;
}

/**
 * Index of the quote that ends the JSON string text at b[from..end), or -1: at a control character, an
 * escape JSON does not have, or the end. Bytes from 0x80 on are text (decoding may replace them, never
 * with structure).
 */
function tokenEnd(b: Uint8Array, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    const c = b[i];
    if (c === QUOTE) return i;
    if (c < SPACE) return -1;
    if (c !== BACKSLASH) continue;
    if (++i >= end) return -1;
    const escaped = ESCAPE[b[i]];
    if (escaped === 2) {
      if (i + UNICODE_ESCAPE_DIGITS >= end) return -1;
      for (let k = 1; k <= UNICODE_ESCAPE_DIGITS; k++) if (HEX_DIGIT[b[i + k]] !== 1) return -1;
      i += UNICODE_ESCAPE_DIGITS;
    } else if (escaped !== 1) {
      return -1;
    }
  }
  return -1;
}

/** Index of the quote that ends a plain string's text at b[from..end), or -1 at an escape, a control character or the end. */
function plainEnd(b: Uint8Array, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    const c = b[i];
    if (c === QUOTE) return i;
    if (c < SPACE || c === BACKSLASH) return -1;
  }
  return -1;
}

/**
 * Reads the whole, checked message b[start..end) by the template: returns true, having added its token,
 * or false, having changed nothing.
 */
export function takeByMessageTemplate(t: MessageTemplate, b: Uint8Array, start: number, end: number, s: StreamState): boolean {
  const { pieces, holes } = t;
  if (u32(b, start + 4) !== t.headersLength) return false;
  let pos = start + PRELUDE_BYTES;
  const payloadEnd = end - CRC_BYTES;
  let open = -1;
  let close = -1;
  for (let i = 0; i < holes.length; i++) {
    const piece = pieces[i];
    if (pos + piece.bytes.length > payloadEnd || !same(b, pos, piece)) return false;
    pos += piece.bytes.length;
    if (holes[i] === TOKEN) {
      open = pos - 1;
      close = tokenEnd(b, pos, payloadEnd);
      if (close === -1) return false;
      pos = close;
    } else {
      pos = plainEnd(b, pos, payloadEnd);
      if (pos === -1) return false;
    }
  }
  const last = pieces[holes.length];
  if (pos + last.bytes.length !== payloadEnd || !same(b, pos, last)) return false;
  // addSlice reads the token's text only to collect it: then it is decoded, quotes included.
  if (s.collectText) {
    const quoted = utf8.decode(b.subarray(open, close + 1));
    addSlice(s, quoted, 0, quoted.length - 1, t.kind);
  } else {
    addSlice(s, '', 0, close - open, t.kind);
  }
  return true;
}

/**
 * The template of an accepted token message b[start..end), its payload at b[payloadStart..end - CRC_BYTES)
 * and its token string at payload[open..close] (quotes included, indices of the payload's text). Null when
 * the payload is not ASCII (its text's indices would not be byte offsets). Volatile keys of the plain kind
 * become holes when their value is a plain string; any other stays literal.
 */
export function learnMessageTemplate(
  b: Uint8Array,
  start: number,
  payloadStart: number,
  end: number,
  open: number,
  close: number,
  kind: OutputKind,
  volatiles: readonly Volatile[] = [],
): MessageTemplate | null {
  const payloadEnd = end - CRC_BYTES;
  for (let i = payloadStart; i < payloadEnd; i++) if (b[i] >= ASCII_END) return null;
  const length = payloadEnd - payloadStart;
  if (open < 0 || close <= open || close >= length || b[payloadStart + open] !== QUOTE || b[payloadStart + close] !== QUOTE) return null;
  const text = utf8.decode(b.subarray(payloadStart, payloadEnd));
  const cuts: { start: number; end: number; hole: HoleKind }[] = [{ start: open + 1, end: close, hole: TOKEN }];
  for (const v of volatiles) {
    if (v.kind !== 'plain') continue;
    const at = text.indexOf(v.key);
    if (at === -1 || (at > open && at < close)) continue;
    let from = at + v.key.length;
    while (text.charCodeAt(from) === SPACE) from++;
    if (text.charCodeAt(from) !== QUOTE) continue;
    from++;
    const to = plainEnd(b, payloadStart + from, payloadEnd) - payloadStart;
    if (to < 0) continue;
    cuts.push({ start: from, end: to, hole: PLAIN });
  }
  cuts.sort((x, y) => x.start - y.start);
  const pieces: Piece[] = [];
  const holes: HoleKind[] = [];
  // The first piece begins with the headers.
  let from = start + PRELUDE_BYTES;
  for (const cut of cuts) {
    if (payloadStart + cut.start < from) return null; // overlapping cuts: a malformed shape is not worth a template
    pieces.push(piece(b.slice(from, payloadStart + cut.start)));
    holes.push(cut.hole);
    from = payloadStart + cut.end;
  }
  pieces.push(piece(b.slice(from, payloadEnd)));
  return { kind, headersLength: payloadStart - start - PRELUDE_BYTES, pieces, holes };
}
