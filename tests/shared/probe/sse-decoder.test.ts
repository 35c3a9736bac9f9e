import { describe, expect, it } from 'vitest';
import { createLineDecoder, createSseDecoder } from '../../../shared/probe/sse-decoder.ts';

function decode(pieces: string[]): Array<[string, string]> {
  const events: Array<[string, string]> = [];
  const d = createSseDecoder((event, data) => events.push([event, data]));
  for (const p of pieces) d.push(p);
  d.end();
  return events;
}

/** Every way of cutting the text into two reads must give the same events. */
function allSplits(text: string): Array<Array<[string, string]>> {
  const out = [];
  for (let i = 0; i <= text.length; i++) out.push(decode([text.slice(0, i), text.slice(i)]));
  return out;
}

describe('SSE decoder (WHATWG event-stream rules)', () => {
  const cases: Array<[string, string, Array<[string, string]>]> = [
    [
      'LF line ends',
      'data: a\n\ndata: b\n\n',
      [
        ['', 'a'],
        ['', 'b'],
      ],
    ],
    [
      'CRLF line ends',
      'data: a\r\n\r\ndata: b\r\n\r\n',
      [
        ['', 'a'],
        ['', 'b'],
      ],
    ],
    [
      'CR line ends',
      'data: a\r\rdata: b\r\r',
      [
        ['', 'a'],
        ['', 'b'],
      ],
    ],
    [
      'mixed line ends',
      'data: a\r\n\ndata: b\r\r\n',
      [
        ['', 'a'],
        ['', 'b'],
      ],
    ],
    [
      'event names',
      'event: ping\ndata: {}\n\nevent: x\ndata: 1\n\n',
      [
        ['ping', '{}'],
        ['x', '1'],
      ],
    ],
    ['data before event (Bedrock order)', 'data: 1\nevent: done\n\n', [['done', '1']]],
    ['multi-line data joined with LF', 'data: a\ndata: b\ndata\n\n', [['', 'a\nb\n']]],
    ['no space after colon', 'data:{"a":1}\n\n', [['', '{"a":1}']]],
    ['only one leading space stripped', 'data:  two\n\n', [['', ' two']]],
    ['comments ignored', ': keep-alive\n: OPENROUTER PROCESSING\n\ndata: x\n\n', [['', 'x']]],
    ['id and retry ignored', 'id: 7\nretry: 100\ndata: x\n\n', [['', 'x']]],
    ['unknown fields ignored', 'foo: bar\ndata: x\n\n', [['', 'x']]],
    ['blank event without data dispatches nothing', 'event: lone\n\ndata: x\n\n', [['', 'x']]],
    [
      'event type resets after dispatch',
      'event: a\ndata: 1\n\ndata: 2\n\n',
      [
        ['a', '1'],
        ['', '2'],
      ],
    ],
    ['leading BOM stripped', '\ufeffdata: x\n\n', [['', 'x']]],
    ['unterminated final event dropped', 'data: a\n\ndata: b\n', [['', 'a']]],
    ['empty data value', 'data:\n\n', [['', '']]],
    ['colon in value kept', 'data: a:b: c\n\n', [['', 'a:b: c']]],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => {
      for (const events of allSplits(text)) expect(events).toEqual(expected);
      expect(decode(text.split(''))).toEqual(expected);
    });
  }

  it('a CR at the end of one read and LF at the start of the next make one line end', () => {
    expect(decode(['data: a\r', '\n\r', '\ndata: b\r\n\r\n'])).toEqual([
      ['', 'a'],
      ['', 'b'],
    ]);
  });

  it('a UTF-8 character split across reads survives the streaming TextDecoder', () => {
    const bytes = new TextEncoder().encode('data: héllo – 👋\n\n');
    const decoder = new TextDecoder();
    const events: string[] = [];
    const d = createSseDecoder((_e, data) => events.push(data));
    for (let i = 0; i < bytes.length; i++) d.push(decoder.decode(bytes.subarray(i, i + 1), { stream: true }));
    d.end();
    expect(events).toEqual(['héllo – 👋']);
  });
});

describe('the per-line and per-event cap', () => {
  const CAP = 1000;
  function capped(make: typeof createSseDecoder, pieces: string[]) {
    const events: string[] = [];
    const overflows: string[] = [];
    const d = make((_e, data) => events.push(data), { onOverflow: (detail) => overflows.push(detail), maxChars: CAP });
    for (const p of pieces) d.push(p);
    d.end();
    return { events, overflows };
  }

  it('a line at the cap passes, one past it stops the decoder once, whether it arrives whole or in pieces', () => {
    for (const make of [createSseDecoder, createLineDecoder]) {
      const field = make === createSseDecoder ? 'data: ' : '';
      const end = make === createSseDecoder ? '\n\n' : '\n';
      const at = field + 'x'.repeat(CAP - field.length);
      expect(capped(make, [at + end]).overflows).toEqual([]);
      const over = field + 'x'.repeat(CAP + 1 - field.length);
      for (const pieces of [[`${over + end + field}y${end}`], [...over.match(/.{1,64}/g)!, end, `${field}y${end}`]]) {
        const { events, overflows } = capped(make, pieces);
        expect(overflows).toEqual(['a line over the 1 KiB cap']);
        expect(events).toEqual([]); // nothing after the overflow either
      }
    }
  });

  it('a line that never ends is cut at the cap, not held whole', () => {
    const { overflows } = capped(
      createSseDecoder,
      Array.from({ length: 100 }, () => 'x'.repeat(100)),
    );
    expect(overflows).toEqual(['a line over the 1 KiB cap']);
  });

  it('an event whose data lines together pass the cap is an overflow too', () => {
    const line = `data: ${'x'.repeat(300)}\n`;
    expect(capped(createSseDecoder, [`${line.repeat(3)}\n`]).overflows).toEqual([]);
    expect(capped(createSseDecoder, [`${line.repeat(4)}\n`]).overflows).toEqual(['an event over the 1 KiB cap']);
  });
});

describe('NDJSON line decoder', () => {
  it('splits lines, accepts CRLF, skips blanks and completes a final line at close', () => {
    const lines: string[] = [];
    const d = createLineDecoder((_e, line) => lines.push(line));
    for (const piece of ['{"a":', '1}\r\n\n{"b":2}\n{"c"', ':3}']) d.push(piece);
    d.end();
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });
});

describe("the stream meter's decoding", () => {
  it('keeps a BOM that is content, joins characters split across reads, and drops only a leading BOM', async () => {
    const { StreamMeter } = await import('../../../shared/probe/stream-meter.ts');
    const { protocolFor } = await import('../../../shared/probe/protocols/index.ts');
    const text = '\ufeffhé 🙂 ok';
    const body = new TextEncoder().encode(
      `\ufeffdata: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\ndata: [DONE]\n\n`,
    );
    for (let cut = 1; cut < body.length; cut++) {
      const meter = new StreamMeter(protocolFor('openai-chat'), { collectText: true });
      meter.onRead(body.subarray(0, cut), 1);
      meter.onRead(body.subarray(cut), 2);
      meter.onClose(3);
      meter.settle();
      expect(meter.state.answerText, `cut at ${cut}`).toBe(text);
    }
    const ndjson = new StreamMeter(protocolFor('ollama'), { collectText: true });
    ndjson.onRead(new TextEncoder().encode(`\ufeff${JSON.stringify({ message: { content: text }, done: false })}\n`), 1);
    ndjson.onClose(2);
    expect(ndjson.state.answerText).toBe(text);
  });
});
