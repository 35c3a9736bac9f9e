/**
 * Writes messages of AWS's binary event stream (the layout is in aws-eventstream.ts), for built-in streams
 * such as the probe's warm-up and the benchmarks. String headers only: what AWS's services send.
 */
import { CRC_BYTES, MIN_MESSAGE_BYTES, PRELUDE_BYTES } from './aws-eventstream.ts';
import { crc32 } from './crc32.ts';

const encoder = new TextEncoder();
/** A header name's length is one byte; a string value's two, of which AWS's codec allows the signed range. */
const MAX_NAME_BYTES = 255;
const MAX_VALUE_BYTES = 32_767;
const STRING_TYPE = 7;

/** One message with string headers (`:message-type`, `:event-type`, `:content-type` …): names up to 255 bytes, values up to 32,767. */
export function encodeEventStreamMessage(headers: Record<string, string>, payload: Uint8Array): Uint8Array {
  const encoded: Array<[Uint8Array, Uint8Array]> = [];
  let headersLength = 0;
  for (const [name, value] of Object.entries(headers)) {
    const n = encoder.encode(name);
    const v = encoder.encode(value);
    if (n.length > MAX_NAME_BYTES || v.length > MAX_VALUE_BYTES) throw new RangeError(`event-stream header "${name}" is too long`);
    encoded.push([n, v]);
    headersLength += 1 + n.length + 3 + v.length;
  }
  const total = MIN_MESSAGE_BYTES + headersLength + payload.length;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headersLength);
  view.setUint32(8, crc32(out, 0, 8));
  let p = PRELUDE_BYTES;
  for (const [n, v] of encoded) {
    out[p++] = n.length;
    out.set(n, p);
    p += n.length;
    out[p++] = STRING_TYPE;
    view.setUint16(p, v.length);
    out.set(v, p + 2);
    p += 2 + v.length;
  }
  out.set(payload, p);
  view.setUint32(total - CRC_BYTES, crc32(out, 0, total - CRC_BYTES));
  return out;
}
