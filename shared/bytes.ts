/** Byte arrays: what the binary framings (AWS's event stream) and their tests put together, and hex text back to bytes. */
/** The parts one after another, in one new array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/*
 * Hexadecimal text back to bytes, as SQLite's hex() writes a BLOB (upper case, two digits a byte). D1
 * hands a BLOB to a Worker as a JSON array of numbers, about 3.5 characters and one array element a
 * byte, all parsed on the Worker's CPU; hex text is 2 characters a byte in one string, which JSON.parse
 * copies rather than parses (bench/duties.ts measures both).
 */

/** The value of each hex digit by character code (-1: not a digit). */
const DIGITS = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) DIGITS[0x30 + i] = i;
for (let i = 0; i < 6; i++) DIGITS[0x41 + i] = DIGITS[0x61 + i] = 10 + i;

/** Throws a SyntaxError on text that is not whole bytes of hex digits. */
export function hexToBytes(text: string): Uint8Array {
  // The runtime's own decoder where it has one (workerd does; Node 22 does not).
  const native = (Uint8Array as unknown as { fromHex?: (text: string) => Uint8Array }).fromHex;
  if (native) return native(text);
  return hexToBytesHere(text);
}

/** The same, decoded here (a runtime without Uint8Array.fromHex). */
export function hexToBytesHere(text: string): Uint8Array {
  if (text.length % 2 !== 0) throw new SyntaxError('hex text of an odd length');
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) {
    const hi = DIGITS[text.charCodeAt(2 * i)] ?? -1;
    const lo = DIGITS[text.charCodeAt(2 * i + 1)] ?? -1;
    if ((hi | lo) < 0) throw new SyntaxError(`not a hex digit at ${2 * i}`);
    out[i] = (hi << 4) | lo;
  }
  return out;
}

const utf8 = new TextDecoder();

/**
 * Short UTF-8 texts (names: targets, variants, split sources) by their bytes, each decoded once: a long
 * window's rows name the same few hundred things thousands of times. Holds at most `capacity` texts,
 * then starts over (a name is decoded again, never wrong).
 */
export class TextCache {
  private readonly byHash = new Map<number, Array<{ bytes: Uint8Array; text: string }>>();
  private size = 0;
  private readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** The text of bytes[start, end). */
  textOf(bytes: Uint8Array, start: number, end: number): string {
    // FNV-1a over the bytes: a name's few bytes, no string made to look it up.
    let hash = 0x811c9dc5;
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
    const known = this.byHash.get(hash);
    if (known)
      found: for (const k of known) {
        if (k.bytes.length !== end - start) continue;
        for (let i = 0; i < k.bytes.length; i++) if (k.bytes[i] !== bytes[start + i]) continue found;
        return k.text;
      }
    const text = utf8.decode(bytes.subarray(start, end));
    if (this.size >= this.capacity) {
      this.byHash.clear();
      this.size = 0;
    }
    const entry = { bytes: bytes.slice(start, end), text };
    if (known && this.byHash.has(hash)) known.push(entry);
    else this.byHash.set(hash, [entry]);
    this.size++;
    return text;
  }
}
