/**
 * AWS's binary event stream framing (application/vnd.amazon.eventstream), written from AWS's
 * description of it. One message:
 *   total length (u32 BE) | headers length (u32 BE) | prelude CRC-32 of those 8 bytes (u32 BE)
 *   | headers | payload | message CRC-32 of every byte before it (u32 BE)
 * and one header: name length (u8) | name (UTF-8) | value type (u8; 7 = string) | value length (u16 BE) | value.
 * Only string headers are written: every header Bedrock sends on a stream is one.
 */
import { crc32 } from './crc32.ts';
import { concatBytes } from './format.ts';

const PRELUDE_BYTES = 8;
const CRC_BYTES = 4;
const HEADER_TYPE_STRING = 7;
const MAX_HEADER_NAME_BYTES = 255;
const MAX_HEADER_VALUE_BYTES = 65_535;

const encoder = new TextEncoder();

/** One message with string headers (in the order given) and a payload (text is sent as UTF-8). */
export function encodeMessage(headers: Record<string, string>, payload: Uint8Array | string): Uint8Array {
  const body = typeof payload === 'string' ? encoder.encode(payload) : payload;
  const encodedHeaders = encodeHeaders(headers);
  const total = PRELUDE_BYTES + CRC_BYTES + encodedHeaders.byteLength + body.byteLength + CRC_BYTES;
  const message = new Uint8Array(total);
  const view = new DataView(message.buffer);
  view.setUint32(0, total);
  view.setUint32(4, encodedHeaders.byteLength);
  view.setUint32(PRELUDE_BYTES, crc32(message.subarray(0, PRELUDE_BYTES)));
  message.set(encodedHeaders, PRELUDE_BYTES + CRC_BYTES);
  message.set(body, PRELUDE_BYTES + CRC_BYTES + encodedHeaders.byteLength);
  view.setUint32(total - CRC_BYTES, crc32(message.subarray(0, total - CRC_BYTES)));
  return message;
}

function encodeHeaders(headers: Record<string, string>): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = encoder.encode(name);
    const v = encoder.encode(value);
    if (n.byteLength > MAX_HEADER_NAME_BYTES || v.byteLength > MAX_HEADER_VALUE_BYTES)
      throw new RangeError(`event stream header ${name} too long`);
    const header = new Uint8Array(1 + n.byteLength + 1 + 2 + v.byteLength);
    const view = new DataView(header.buffer);
    view.setUint8(0, n.byteLength);
    header.set(n, 1);
    view.setUint8(1 + n.byteLength, HEADER_TYPE_STRING);
    view.setUint16(2 + n.byteLength, v.byteLength);
    header.set(v, 4 + n.byteLength);
    parts.push(header);
  }
  return concatBytes(parts);
}
