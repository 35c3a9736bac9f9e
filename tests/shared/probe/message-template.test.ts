/**
 * The message template (shared/probe/protocols/message-template.ts) reads a Bedrock ConverseStream exactly
 * as the full parse does: the same text, token counts, usage, end and errors, and the same read times, for
 * the benchmark's stream and a reasoned, tool-calling one, one message per read and cut into odd reads (so
 * that messages lie split across them), and with messages changed in every way that should send them the
 * long way (escapes, control characters, bad UTF-8, another key or header, a broken payload or CRC).
 */
import { describe, expect, it } from 'vitest';
import { StreamMeter } from '../../../shared/probe/stream-meter.ts';
import { protocolFor } from '../../../shared/probe/protocols/index.ts';
import { encodeEventStreamMessage } from '../../../shared/probe/aws-eventstream-encoder.ts';
import { bedrockConverseMessages, bedrockEvent } from '../../../bench/synthetic-bedrock.ts';
import { awsError, awsException, concat } from '../../helpers/bedrock-stream.ts';

const bedrock = protocolFor('bedrock-converse');
const encoder = new TextEncoder();
const EVENT_HEADERS = { ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event' };

/** A contentBlockDelta message whose payload is exactly these bytes (valid JSON or not), its CRCs right. */
const rawDelta = (payload: string | Uint8Array, headers: Record<string, string> = EVENT_HEADERS) =>
  encodeEventStreamMessage(headers, typeof payload === 'string' ? encoder.encode(payload) : payload);

function read(reads: Uint8Array[], fastPath: boolean, collectText: boolean, count?: { fast: number }) {
  const counted =
    count === undefined
      ? bedrock
      : {
          ...bedrock,
          fastEvent: (event: string, data: string, s: Parameters<NonNullable<typeof bedrock.fastEvent>>[2]) => {
            count.fast++;
            return bedrock.fastEvent!(event, data, s);
          },
        };
  const meter = new StreamMeter(counted, { collectText, fastPath });
  let t = 0;
  for (const r of reads) {
    meter.onRead(r, ++t);
    if (meter.finished) break;
  }
  meter.onClose(++t);
  meter.settle();
  // What a reading leaves behind; per-read and per-event flags and the fast paths' own bookkeeping aside.
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

/** The stream's bytes cut every `size` bytes (0: one read per message). */
function cut(messages: Uint8Array[], size: number): Uint8Array[] {
  if (size === 0) return messages;
  const all = concat(messages);
  const out: Uint8Array[] = [];
  for (let i = 0; i < all.length; i += size) out.push(all.subarray(i, i + size));
  return out;
}

function expectSameReading(messages: Uint8Array[], label: string): void {
  for (const size of [0, 1, 7, 211, 4096, 1 << 30]) {
    // Byte by byte, the first 80 messages (every shape and change the variants make lies among them).
    const reads = cut(size === 1 ? messages.slice(0, 80) : messages, size);
    for (const collectText of [true, false])
      expect(read(reads, true, collectText), `${label}, reads of ${size || 'one message'}, collectText ${collectText}`).toEqual(
        read(reads, false, collectText),
      );
  }
}

const delta = (index: number, d: object, p?: string) => bedrockEvent('contentBlockDelta', { contentBlockIndex: index, delta: d, p });

/** Reasoning (padded and not), its signature, a text block, a tool call, the stop and the metadata. */
function reasonedToolStream(): Uint8Array[] {
  const words = [' Let', ' me', ' think', ' about', ' it', '.'];
  const m = [bedrockEvent('messageStart', { role: 'assistant' })];
  // Padded, but for a few in the middle (another shape, which the template learns, and then the first again).
  for (let i = 0; i < 60; i++)
    m.push(delta(0, { reasoningContent: { text: words[i % 6] } }, i >= 20 && i < 24 ? undefined : 'abcdefgh'.slice(0, 1 + (i % 8))));
  m.push(delta(0, { reasoningContent: { signature: 'EqQBCkYIBxgCKkA' } }), bedrockEvent('contentBlockStop', { contentBlockIndex: 0 }));
  for (let i = 0; i < 60; i++)
    m.push(delta(1, { text: words[(i + 3) % 6] }, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ'.slice(0, 5 + (i % 30))));
  m.push(
    bedrockEvent('contentBlockStop', { contentBlockIndex: 1 }),
    bedrockEvent('contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tooluse_abc', name: 'get_weather' } } }),
  );
  for (const input of ['{"ci', 'ty":', ' "Par', 'is"', ', "u', 'nits"', ': "C"', '}']) m.push(delta(2, { toolUse: { input } }, 'abcdef'));
  m.push(
    bedrockEvent('contentBlockStop', { contentBlockIndex: 2 }),
    bedrockEvent('messageStop', { stopReason: 'tool_use' }),
    bedrockEvent('metadata', { usage: { inputTokens: 12, outputTokens: 130, totalTokens: 142 }, metrics: { latencyMs: 2900 } }),
  );
  return m;
}

const STREAMS: Array<[string, () => Uint8Array[]]> = [
  ['the benchmark stream', bedrockConverseMessages],
  ['a reasoned answer and a tool call', reasonedToolStream],
];

/** Token texts that must each be read right (the encoder escapes them as JSON does). */
const TRICKY_TOKENS = ['a"b', 'back\\slash', '{"x":1}}', '"},"p":"', 'é 🙂', '\\', '\n', '\t', '\u0001', '\u2028', '', 'x'.repeat(5000)];

/** Payloads in the learned shape's place that the full parse reads otherwise, or not at all. */
const CHANGED_PAYLOADS: Array<[string, string | Uint8Array]> = [
  ['a unicode escape', '{"contentBlockIndex":0,"delta":{"text":"\\u00e9\\ud83d\\ude42"},"p":"abc"}'],
  ['an escape JSON does not have', '{"contentBlockIndex":0,"delta":{"text":"\\x41"},"p":"abc"}'],
  ['a short unicode escape', '{"contentBlockIndex":0,"delta":{"text":"\\u00e"},"p":"abc"}'],
  ['a backslash ending the token', '{"contentBlockIndex":0,"delta":{"text":"a\\"},"p":"abc"}'],
  ['a raw line break in the token', '{"contentBlockIndex":0,"delta":{"text":"a\nb"},"p":"abc"}'],
  ['a raw tab in the padding', '{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"a\tbc"}'],
  ['an escaped quote in the padding', '{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"a\\"bc"}'],
  ['a padding ending in an escaped backslash', '{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"a\\\\"}'],
  ['an escape JSON does not have in the padding', '{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"a\\x"}'],
  ['no padding', '{"contentBlockIndex":0,"delta":{"text":" fox"}}'],
  ['a new key after the delta', '{"contentBlockIndex":0,"delta":{"text":" fox"},"stop":true,"p":"abc"}'],
  ['a second delta', '{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"abc","delta":{"reasoningContent":{"text":"x"}}}'],
  ['a second key in the delta', '{"contentBlockIndex":0,"delta":{"text":" fox","toolUse":{"input":"{}"}},"p":"abc"}'],
  ['another block index', '{"contentBlockIndex":7,"delta":{"text":" fox"},"p":"abc"}'],
  ['a leading zero', '{"contentBlockIndex":00,"delta":{"text":" fox"},"p":"abc"}'],
  ['a cut-off payload', '{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"abc"'],
  ['a byte after the object', '{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"abc"}x'],
  ['a trailing space', '{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"abc"} '],
  ['non-ASCII padding', '{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"äbc"}'],
  [
    'bad UTF-8 in the token',
    concat([
      encoder.encode('{"contentBlockIndex":0,"delta":{"text":"a'),
      Uint8Array.of(0xc3, 0x28, 0xff, 0xe2, 0x82),
      encoder.encode('"},"p":"abc"}'),
    ]),
  ],
  [
    'bad UTF-8 before a quote',
    concat([encoder.encode('{"contentBlockIndex":0,"delta":{"text":"a'), Uint8Array.of(0xe2), encoder.encode('"},"p":"abc"}')]),
  ],
  ['a BOM first', '\ufeff{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"abc"}'],
  ['an empty payload', ''],
];

/** Whole messages in a token message's place: the same payload under other headers, or no delta at all. */
const CHANGED_MESSAGES: Array<[string, Uint8Array]> = [
  [
    'another event type',
    rawDelta('{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"abc"}', { ...EVENT_HEADERS, ':event-type': 'contentBlockStart' }),
  ],
  ['an extra header', rawDelta('{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"abc"}', { ...EVENT_HEADERS, 'x-extra': '1' })],
  [
    'headers in another order',
    rawDelta('{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"abc"}', {
      ':message-type': 'event',
      ':event-type': 'contentBlockDelta',
      ':content-type': 'application/json',
    }),
  ],
  [
    'an exception with a token-like payload',
    rawDelta('{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"abc"}', {
      ':exception-type': 'throttlingException',
      ':content-type': 'application/json',
      ':message-type': 'exception',
    }),
  ],
  ['a throttling exception', awsException('throttlingException', 'Too many tokens, please wait')],
  ['an error message', awsError('InternalFailure', 'something broke')],
  [
    'no message type',
    rawDelta('{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"abc"}', {
      ':event-type': 'contentBlockDelta',
      ':content-type': 'application/json',
    }),
  ],
];

/** A copy with one byte of its token flipped after its CRCs were written: the message CRC fails. */
function flipToken(message: Uint8Array): Uint8Array {
  const copy = message.slice();
  copy[copy.length - 4 - '"},"p":"abc"}'.length - 1] ^= 0x01;
  return copy;
}

describe('the message template (Bedrock ConverseStream)', () => {
  for (const [name, stream] of STREAMS) {
    it(`${name}: takes almost every token message, and reads them as the full parse does`, () => {
      const messages = stream();
      const count = { fast: 0 };
      const fast = read(messages, true, true, count);
      // The fast path saw only the first message of each shape (and a block's first); the template took the rest.
      expect(count.fast).toBeLessThan(20);
      expect(fast.state.tokenEvents).toBeGreaterThan(60);
      // Also when almost every message lies split across reads (and is joined before it is read).
      const split = { fast: 0 };
      read(cut(messages, 7), true, true, split);
      expect(split.fast).toBeLessThan(20);
      expectSameReading(messages, name);
    });

    it(`${name}: escaped, bracing, control and multi-byte tokens`, () => {
      let k = 0;
      const messages = stream().map((m, i) => {
        if (i % 3 !== 0) return m;
        const payload = new TextDecoder().decode(m.subarray(12 + new DataView(m.buffer, m.byteOffset).getUint32(4), m.length - 4));
        const match = /^\{"contentBlockIndex":(\d+),"delta":\{"(text|reasoningContent|toolUse)":/.exec(payload);
        if (match === null || payload.includes('signature')) return m;
        const token = TRICKY_TOKENS[k++ % TRICKY_TOKENS.length];
        const d =
          match[2] === 'text'
            ? { text: token }
            : match[2] === 'reasoningContent'
              ? { reasoningContent: { text: token } }
              : { toolUse: { input: token } };
        return delta(Number(match[1]), d, 'abcdefghij');
      });
      expect(k).toBeGreaterThan(TRICKY_TOKENS.length);
      expectSameReading(messages, 'tricky tokens');
    });
  }

  const base = bedrockConverseMessages().slice(0, 120);
  for (const [name, payload] of CHANGED_PAYLOADS) {
    it(`a changed payload mid-stream: ${name}`, () => {
      // Twice in a row, and again later, once the template has been learned anew.
      const messages = base.map((m, i) => (i === 50 || i === 51 || i === 90 ? rawDelta(payload) : m));
      expectSameReading(messages, name);
    });
  }

  for (const [name, message] of CHANGED_MESSAGES) {
    it(`a changed message mid-stream: ${name}`, () => {
      const messages = base.map((m, i) => (i === 50 || i === 51 ? message : m));
      expectSameReading(messages, name);
    });
  }

  it('a token message whose CRC fails is a protocol error either way, and nothing after it is read', () => {
    const messages = base.map((m, i) => (i === 50 ? flipToken(rawDelta('{"contentBlockIndex":0,"delta":{"text":" fox"},"p":"abc"}')) : m));
    const fast = read(messages, true, true);
    expect(fast.state.protocolError).toBe('event-stream message CRC mismatch');
    expect(fast.state.tokenEvents).toBe(49);
    expectSameReading(messages, 'a flipped token byte');
  });

  it('learns from no message whose payload is not ASCII, and reads such a stream as the full parse does', () => {
    const messages = base.map((m, i) => (i > 0 && i < 100 ? delta(0, { text: i % 2 ? 'é' : '🙂' }, 'abc') : m));
    const count = { fast: 0 };
    read(messages, true, true, count);
    // messageStart, the 99 non-ASCII deltas, and the first ASCII one, which teaches the template the rest.
    expect(count.fast).toBe(101);
    expectSameReading(messages, 'non-ASCII tokens');
  });
});
