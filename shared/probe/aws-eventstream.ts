/**
 * Incremental decoder of AWS's binary event stream (`application/vnd.amazon.eventstream`, Bedrock's
 * ConverseStream and InvokeModelWithResponseStream). Each message:
 *
 *   total length (u32 BE) | headers length (u32 BE) | prelude CRC (u32 BE, over the 8 bytes before it)
 *   headers: name length (u8), name (UTF-8), value type (u8), value
 *   payload
 *   message CRC (u32 BE, over every byte before it)
 *
 * Header value types: 0 true, 1 false (no value bytes), 2 byte, 3 short, 4 int, 5 long (signed, big
 * endian), 6 bytes and 7 string (u16 length first), 8 timestamp (i64 ms since the epoch), 9 uuid (16 bytes).
 *
 * Bytes are pushed read by read and a message may be split across reads at any byte. Linear in the bytes:
 * a message that lies whole in a read is decoded where it lies; only one that a read leaves open is
 * copied, once, into a buffer of its announced length (or, before its 12-byte prelude is in, a buffer of
 * 12), and each byte is checked by a CRC once. Bounded: a message announcing more than the caps stops
 * the decoder before anything is allocated for it. Any fault stops it too: nothing after it is read.
 * A reader may take whole, checked messages straight from their bytes (`RawMessages`).
 * (Writing messages: aws-eventstream-encoder.ts.)
 */
import { MAX_EVENT_CHARS } from '../constants.ts';
import { crc32 } from './crc32.ts';

export type EventStreamHeader =
  | { type: 'boolean'; value: boolean }
  | { type: 'byte' | 'short' | 'integer'; value: number }
  | { type: 'long'; value: bigint }
  | { type: 'binary'; value: Uint8Array }
  | { type: 'string'; value: string }
  /** Milliseconds since the epoch. */
  | { type: 'timestamp'; value: number }
  /** Lower-case hex, 8-4-4-4-12. */
  | { type: 'uuid'; value: string };

/** A message's headers by name (a prototype-free object: a header may be called anything). */
export type EventStreamHeaders = Record<string, EventStreamHeader>;

/** One whole message; `payload` is a view into the decoder's input, valid during the call only. */
export type MessageSink = (headers: EventStreamHeaders, payload: Uint8Array) => void;
/**
 * Called once, when the stream breaks the format (a CRC, a length, a header) or a message passes a cap;
 * `overflow` tells the two apart. The decoder reads nothing after it.
 */
export type FaultSink = (detail: string, overflow: boolean) => void;

export interface ByteFramer {
  push(bytes: Uint8Array): void;
  /** The stream closed: a message left open is a fault. */
  end(): void;
}

/** Prelude (two lengths and their CRC) and the message CRC: the smallest message has no header and no payload. */
export const PRELUDE_BYTES = 12;
export const CRC_BYTES = 4;
export const MIN_MESSAGE_BYTES = PRELUDE_BYTES + CRC_BYTES;
/** AWS's own limit on one message's headers. */
export const MAX_EVENT_STREAM_HEADERS_BYTES = 128 * 1024;
/** One event's data, as for the text framings: MAX_EVENT_CHARS, here in bytes. */
export const MAX_EVENT_STREAM_PAYLOAD_BYTES = MAX_EVENT_CHARS;
/** The largest message the caps allow. */
export const MAX_EVENT_STREAM_MESSAGE_BYTES = MIN_MESSAGE_BYTES + MAX_EVENT_STREAM_HEADERS_BYTES + MAX_EVENT_STREAM_PAYLOAD_BYTES;

/**
 * A reader that takes whole messages straight from their bytes (protocols/message-template.ts): offered each
 * message once both its CRCs have checked, before its headers are read, and told where each message it did not
 * take lay once that message was handed on, so that it can learn its shape.
 */
export interface RawMessages {
  /** Takes the message b[start..end) if it recognises it (it is then not handed on): returns true. */
  take(b: Uint8Array, start: number, end: number): boolean;
  /** The message b[start..end) was just handed on; its payload is b[payloadStart..end - CRC_BYTES). */
  seen(b: Uint8Array, start: number, payloadStart: number, end: number): void;
}

export interface EventStreamOptions {
  onFault?: FaultSink;
  raw?: RawMessages;
  /** Caps (bytes); the defaults above. */
  maxPayloadBytes?: number;
  maxHeadersBytes?: number;
}

const u32 = (b: Uint8Array, at: number): number => ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;
const kib = (bytes: number): string => `${Math.round(bytes / 1024)} KiB`;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

export function createEventStreamDecoder(onMessage: MessageSink, options: EventStreamOptions = {}): ByteFramer {
  const { onFault, raw, maxPayloadBytes = MAX_EVENT_STREAM_PAYLOAD_BYTES, maxHeadersBytes = MAX_EVENT_STREAM_HEADERS_BYTES } = options;
  const maxMessageBytes = MIN_MESSAGE_BYTES + maxHeadersBytes + maxPayloadBytes;
  /** The prelude of a message begun in an earlier read, while fewer than 12 of its bytes are in. */
  const prelude = new Uint8Array(PRELUDE_BYTES);
  let preludeFill = 0;
  /** A message begun in an earlier read, once its prelude is in: its whole length, `fill` bytes of it so far. */
  let open: Uint8Array | null = null;
  let fill = 0;
  /** The CRC of the last prelude checked (the open message's), which its message CRC continues. */
  let lastPreludeCrc = 0;
  let failed = false;

  function fault(detail: string, overflow = false): void {
    failed = true;
    open = null;
    preludeFill = 0;
    onFault?.(detail, overflow);
  }

  /** Checks the prelude at b[at..at+12); returns the message's total length, or -1 after a fault. */
  function readPrelude(b: Uint8Array, at: number): number {
    const crc = crc32(b, at, at + 8);
    if (crc !== u32(b, at + 8)) {
      fault('event-stream prelude CRC mismatch');
      return -1;
    }
    lastPreludeCrc = crc;
    const total = u32(b, at);
    const headersLength = u32(b, at + 4);
    if (total < MIN_MESSAGE_BYTES) fault(`event-stream message length ${total} is below the ${MIN_MESSAGE_BYTES}-byte minimum`);
    else if (total > maxMessageBytes) fault(`an event-stream message of ${total} bytes over the ${kib(maxMessageBytes)} cap`, true);
    else if (headersLength > total - MIN_MESSAGE_BYTES)
      fault(`event-stream headers length ${headersLength} does not fit in a message of ${total} bytes`);
    else if (headersLength > maxHeadersBytes) fault(`event-stream headers over the ${kib(maxHeadersBytes)} cap`, true);
    else if (total - MIN_MESSAGE_BYTES - headersLength > maxPayloadBytes)
      fault(`an event-stream payload over the ${kib(maxPayloadBytes)} cap`, true);
    return failed ? -1 : total;
  }

  /** The whole message at b[start..end), its prelude checked already (its CRC `preludeCrc`). */
  function complete(b: Uint8Array, start: number, end: number, preludeCrc: number): void {
    if (crc32(b, start + 8, end - CRC_BYTES, preludeCrc) !== u32(b, end - CRC_BYTES)) return fault('event-stream message CRC mismatch');
    if (raw?.take(b, start, end)) return;
    const headersEnd = start + PRELUDE_BYTES + u32(b, start + 4);
    const headers = readHeaders(b, start + PRELUDE_BYTES, headersEnd);
    if (typeof headers === 'string') return fault(headers);
    onMessage(headers, b.subarray(headersEnd, end - CRC_BYTES));
    raw?.seen(b, start, headersEnd, end);
  }

  return {
    push(chunk: Uint8Array): void {
      const length = chunk.length;
      let pos = 0;
      while (pos < length && !failed) {
        if (open !== null) {
          const take = Math.min(open.length - fill, length - pos);
          open.set(chunk.subarray(pos, pos + take), fill);
          fill += take;
          pos += take;
          if (fill === open.length) {
            const message = open;
            open = null;
            complete(message, 0, message.length, lastPreludeCrc);
          }
        } else if (preludeFill > 0 || length - pos < PRELUDE_BYTES) {
          const take = Math.min(PRELUDE_BYTES - preludeFill, length - pos);
          prelude.set(chunk.subarray(pos, pos + take), preludeFill);
          preludeFill += take;
          pos += take;
          if (preludeFill < PRELUDE_BYTES) break;
          preludeFill = 0;
          const total = readPrelude(prelude, 0);
          if (total === -1) return;
          open = new Uint8Array(total);
          open.set(prelude);
          fill = PRELUDE_BYTES;
        } else {
          const total = readPrelude(chunk, pos);
          if (total === -1) return;
          if (length - pos >= total) {
            complete(chunk, pos, pos + total, lastPreludeCrc);
            pos += total;
          } else {
            open = new Uint8Array(total);
            open.set(chunk.subarray(pos));
            fill = length - pos;
            pos = length;
          }
        }
      }
    },
    end(): void {
      if (failed) return;
      if (open !== null) fault(`stream ended inside an event-stream message (${fill} of ${open.length} bytes)`);
      else if (preludeFill > 0) fault(`stream ended inside an event-stream prelude (${preludeFill} of ${PRELUDE_BYTES} bytes)`);
    },
  };
}

/** The headers in b[at..end), or what is wrong with them. */
function readHeaders(b: Uint8Array, at: number, end: number): EventStreamHeaders | string {
  const headers: EventStreamHeaders = Object.create(null);
  let p = at;
  while (p < end) {
    const nameEnd = p + 1 + b[p];
    // The name, and at least the value's type byte, must lie within the headers.
    if (nameEnd >= end) return 'event-stream header runs past the headers';
    const name = utf8.decode(b.subarray(p + 1, nameEnd));
    const type = b[nameEnd];
    p = nameEnd + 1;
    let size: number;
    switch (type) {
      case 0:
      case 1:
        size = 0;
        break;
      case 2:
        size = 1;
        break;
      case 3:
        size = 2;
        break;
      case 4:
        size = 4;
        break;
      case 5:
      case 8:
        size = 8;
        break;
      case 6:
      case 7:
        if (p + 2 > end) return `event-stream header "${name}" runs past the headers`;
        size = 2 + ((b[p] << 8) | b[p + 1]);
        break;
      case 9:
        size = 16;
        break;
      default:
        return `unknown event-stream header type ${type} (header "${name.slice(0, 40)}")`;
    }
    if (p + size > end) return `event-stream header "${name}" runs past the headers`;
    headers[name] = headerValue(b, p, type, size);
    p += size;
  }
  return headers;
}

function headerValue(b: Uint8Array, p: number, type: number, size: number): EventStreamHeader {
  switch (type) {
    case 0:
      return { type: 'boolean', value: true };
    case 1:
      return { type: 'boolean', value: false };
    case 2:
      return { type: 'byte', value: (b[p] << 24) >> 24 };
    case 3:
      return { type: 'short', value: (((b[p] << 8) | b[p + 1]) << 16) >> 16 };
    case 4:
      return { type: 'integer', value: u32(b, p) | 0 };
    case 5:
      return { type: 'long', value: (BigInt(u32(b, p) | 0) << 32n) | BigInt(u32(b, p + 4)) };
    case 6:
      return { type: 'binary', value: b.slice(p + 2, p + size) };
    case 7:
      return { type: 'string', value: utf8.decode(b.subarray(p + 2, p + size)) };
    case 8:
      return { type: 'timestamp', value: (u32(b, p) | 0) * 2 ** 32 + u32(b, p + 4) };
    default: {
      let hex = '';
      for (let i = 0; i < 16; i++) hex += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + HEX[b[p + i]];
      return { type: 'uuid', value: hex };
    }
  }
}

/** A header's value when it is a string. */
function stringHeader(headers: EventStreamHeaders, name: string): string | null {
  const h = headers[name];
  return h !== undefined && h.type === 'string' ? h.value : null;
}

/**
 * Hands a message on the way the text framings hand on an event, `(event, data)`: an event
 * (`:message-type` event) as its `:event-type` with the payload's text; an exception as
 * `exception:<:exception-type>` with the payload's text (AWS's services send `{"message": "…"}`); an error
 * as `error:<:error-code>` with `{"message": <:error-message>}`. Returns what is wrong with a message of
 * none of these kinds (nothing is handed on), else null.
 */
export function dispatchMessage(
  headers: EventStreamHeaders,
  payload: Uint8Array,
  onEvent: (event: string, data: string) => void,
): string | null {
  const kind = stringHeader(headers, ':message-type');
  if (kind === 'event') {
    const event = stringHeader(headers, ':event-type');
    if (event === null) return 'event-stream event without an :event-type';
    onEvent(event, utf8.decode(payload));
  } else if (kind === 'exception') {
    onEvent(`exception:${stringHeader(headers, ':exception-type') ?? ''}`, utf8.decode(payload));
  } else if (kind === 'error') {
    onEvent(
      `error:${stringHeader(headers, ':error-code') ?? ''}`,
      JSON.stringify({ message: stringHeader(headers, ':error-message') ?? '' }),
    );
  } else {
    return kind === null ? 'event-stream message without a :message-type' : `unknown event-stream :message-type "${kind.slice(0, 40)}"`;
  }
  return null;
}
