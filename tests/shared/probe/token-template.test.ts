/**
 * The token template (shared/probe/protocols/token-template.ts) reads a stream exactly as the full parse
 * does: the same text, token counts, usage, end and errors, and the same read times, for the
 * benchmark's streams whole, cut into odd reads, and with events changed in every way that should
 * send them the long way (escapes, braces, line breaks inside a value, a new key, another event name).
 */
import { describe, expect, it } from 'vitest';
import { StreamMeter } from '../../../shared/probe/stream-meter.ts';
import { protocolFor } from '../../../shared/probe/protocols/index.ts';
import type { ApiId } from '../../../shared/types.ts';
import { STREAMS } from '../../../bench/synthetic-streams.ts';

const encoder = new TextEncoder();

function read(api: ApiId, reads: Uint8Array[], fastPath: boolean, count?: { fast: number }) {
  const protocol = protocolFor(api);
  const counted =
    count === undefined
      ? protocol
      : {
          ...protocol,
          fastEvent: (event: string, data: string, s: Parameters<NonNullable<typeof protocol.fastEvent>>[2]) => {
            count.fast++;
            return protocol.fastEvent!(event, data, s);
          },
        };
  const meter = new StreamMeter(counted, { collectText: true, fastPath });
  let t = 0;
  for (const r of reads) {
    meter.onRead(r, ++t);
    if (meter.finished) break;
  }
  meter.onClose(++t);
  meter.settle();
  // What a reading leaves behind; per-read and per-event flags and the fast path's own bookkeeping aside.
  const {
    template: _t,
    sliceOpen: _o,
    sliceClose: _c,
    sliceKind: _k,
    deferredUsage: _d,
    readHasToken: _r,
    readHasAnswer: _a,
    eventHasToken: _e,
    ...state
  } = meter.state;
  return {
    state,
    firstTokenAt: meter.firstTokenAt,
    firstAnswerAt: meter.firstAnswerAt,
    lastTokenAt: meter.lastTokenAt,
    endAt: meter.endAt,
    tokenReadTimes: meter.tokenReadTimes,
  };
}

/** The stream's bytes cut every `size` bytes (0: one read per event). */
function cut(events: string[], size: number): Uint8Array[] {
  if (size === 0) return events.map((e) => encoder.encode(e));
  const all = encoder.encode(events.join(''));
  const out: Uint8Array[] = [];
  for (let i = 0; i < all.length; i += size) out.push(all.subarray(i, i + size));
  return out;
}

function expectSameReading(api: ApiId, events: string[], label: string): void {
  for (const size of [0, 1, 7, 211, 4096, 1 << 30]) {
    // Byte by byte, the first 80 events (every shape and change the variants make lies among them).
    const reads = cut(size === 1 ? events.slice(0, 80) : events, size);
    expect(read(api, reads, true), `${label}, reads of ${size || 'one event'}`).toEqual(read(api, reads, false));
  }
}

/** JSON-escaped text as it sits inside a JSON string. */
const inJson = (text: string) => JSON.stringify(text).slice(1, -1);

/** Token texts that must each be read right, escaped as JSON escapes them. */
const TRICKY_TOKENS = ['a"b', 'back\\slash', '{"x":1}}', '}]', 'é 🙂', '\\', 'data: x', '\t', 'event: ping', '"}}'];

describe('the token template', () => {
  for (const s of STREAMS) {
    it(`${s.api}: takes almost every token event, and reads them as the full parse does`, () => {
      const events = s.events();
      const count = { fast: 0 };
      read(s.api, cut(events, 0), true, count);
      // The protocol's own fast path saw only the first events of each shape; the template took the rest.
      expect(count.fast).toBeLessThan(12);
      expectSameReading(s.api, events, 'as recorded');
    });

    it(`${s.api}: escaped, bracing and multi-byte tokens`, () => {
      const events = s.events().map((e, i) => {
        const word = [' quick', ' fox', ' lazy'].find((w) => e.includes(`"${w}"`));
        return word && i % 3 === 0 ? e.replace(`"${word}"`, `"${inJson(TRICKY_TOKENS[i % TRICKY_TOKENS.length])}"`) : e;
      });
      expectSameReading(s.api, events, 'tricky tokens');
    });

    it(`${s.api}: an escape or a control character JSON does not allow is a protocol error, as the full parse says`, () => {
      // A token in the fast path's reach (the first events, learning their shape) and one in the template's.
      const tokenAt = (e: string) => /"(?:text|content|delta)":"[^"\\]+"/.exec(e);
      const events = s.events();
      const first = events.findIndex((e) => tokenAt(e) !== null);
      const later = events.findIndex((e, i) => i >= 40 && tokenAt(e) !== null);
      expect(first).toBeGreaterThanOrEqual(0);
      expect(later).toBeGreaterThan(first);
      for (const bad of ['a\\x', 'b\\u12G4', 'c\\u12', 'tab\there', 'nul\u0000']) {
        for (const at of [first, later]) {
          const changed = events.map((e, i) => (i === at ? e.replace(/("(?:text|content|delta)":)"[^"\\]+"/, `$1"${bad}"`) : e));
          const reads = cut(changed, 0);
          const fast = read(s.api, reads, true);
          const label = `${JSON.stringify(bad)} at event ${at}`;
          expect(fast, label).toEqual(read(s.api, reads, false));
          expect(fast.state.protocolError, label).toMatch(/unparsable/);
        }
      }
    });

    it(`${s.api}: a raw line break inside a value goes the long way`, () => {
      for (const brk of ['\n', '\r', '\r\n']) {
        const events = s.events().map((e, i) => (i === 40 ? e.replace('" fox"', `" f${brk}ox"`) : e));
        expectSameReading(s.api, events, `break ${JSON.stringify(brk)} in a token`);
        // Inside a volatile value (an obfuscation pad, a timestamp) too.
        const inVolatile = s.events().map((e, i) => (i === 41 ? e.replace(/("(?:obfuscation|created_at)":"[^"]{2})/, `$1${brk}`) : e));
        expectSameReading(s.api, inVolatile, `break ${JSON.stringify(brk)} in a volatile value`);
      }
    });

    it(`${s.api}: a changed shape mid-stream (a new key, an escaped volatile, another event name)`, () => {
      const base = s.events();
      const variants: Array<[string, (e: string) => string]> = [
        ['a new key before the token', (e) => e.replace('{"', '{"extra":{"finish_reason":"stop"},"')],
        ['an error key at the end', (e) => e.replace(/}(\r?\n)/, ',"error":{"message":"boom"}}$1')],
        ['a volatile ending in a backslash', (e) => e.replace(/("(?:obfuscation|created_at)":"[^"]*)"/, '$1\\\\"')],
        ['a longer count', (e) => e.replace(/("(?:sequence_number|candidatesTokenCount)":)(\d+)/, '$1$2123')],
        ['another event name', (e) => e.replace(/^event: [^\n]+/, 'event: error')],
        ['a cut-off event', (e) => e.replace(/}(\r?\n\r?\n|\n)$/, '$1')],
      ];
      for (const [name, change] of variants) {
        const events = base.map((e, i) => (i === 50 || i === 51 ? change(e) : e));
        expectSameReading(s.api, events, name);
      }
    });
  }
});
