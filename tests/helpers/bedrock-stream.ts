/**
 * Bedrock ConverseStream wire bytes made by AWS's own codec (@smithy/eventstream-codec), the oracle the probe's
 * decoder is held to, and a fetch that streams given bytes read by read on a fake clock.
 */
import { concatBytes } from '../../shared/bytes.ts';
import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { FakeClock } from './scripted-fetch.ts';

export const codec = new EventStreamCodec(toUtf8, fromUtf8);

const str = (value: string) => ({ type: 'string' as const, value });

/** An event as Bedrock sends one: `:event-type`, `:content-type`, `:message-type` and a JSON payload. */
export function awsEvent(type: string, body: unknown): Uint8Array {
  const headers: MessageHeaders = { ':event-type': str(type), ':content-type': str('application/json'), ':message-type': str('event') };
  return codec.encode({ headers, body: fromUtf8(JSON.stringify(body)) });
}

/** An exception inside the stream: `:exception-type` and `{"message": …}`. */
export function awsException(type: string, message: string): Uint8Array {
  const headers: MessageHeaders = {
    ':exception-type': str(type),
    ':content-type': str('application/json'),
    ':message-type': str('exception'),
  };
  return codec.encode({ headers, body: fromUtf8(JSON.stringify({ message })) });
}

/** An error message: code and message in headers, no payload. */
export function awsError(code: string, message: string): Uint8Array {
  const headers: MessageHeaders = { ':error-code': str(code), ':error-message': str(message), ':message-type': str('error') };
  return codec.encode({ headers, body: new Uint8Array(0) });
}

export const concat = concatBytes;

/** `bytes` cut into reads of the given sizes (the last read takes the rest). */
export function cut(bytes: Uint8Array, sizes: readonly number[]): Uint8Array[] {
  const reads: Uint8Array[] = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= bytes.length) break;
    reads.push(bytes.slice(at, at + size));
    at += size;
  }
  if (at < bytes.length) reads.push(bytes.slice(at));
  return reads;
}

export interface ByteStep {
  /** Fake-clock time of the read. */
  at: number;
  data: Uint8Array;
}

/** A fetch whose 200 body delivers each step as one read at its time; records the request it was given. */
export function bytesFetch(steps: readonly ByteStep[], clock: FakeClock, o: { headersAt?: number; contentType?: string } = {}) {
  const requests: Array<{ url: string; init?: RequestInit }> = [];
  const fetch = async (url: string, init?: RequestInit): Promise<Response> => {
    requests.push({ url, init });
    clock.t = o.headersAt ?? 50;
    let i = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          const step = steps[i++];
          if (!step) return controller.close();
          clock.t = step.at;
          controller.enqueue(step.data);
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: 200, headers: { 'content-type': o.contentType ?? 'application/vnd.amazon.eventstream' } });
  };
  return { fetch, requests };
}
