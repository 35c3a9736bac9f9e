/**
 * The reference's own event-stream encoder and CRC-32 (workers/reference/formats), checked against
 * AWS's codec (@smithy/eventstream-codec), which verifies the lengths and both CRCs of each message.
 */
import { describe, expect, it } from 'vitest';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { crc32 } from '../../workers/reference/formats/crc32.ts';
import { encodeMessage } from '../../workers/reference/formats/aws-eventstream.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const bytes = (text: string) => new TextEncoder().encode(text);

describe('crc32', () => {
  // Check values of CRC-32/ISO-HDLC (the IEEE CRC), from the CRC catalogue and zlib.
  const CASES: Array<[string, number]> = [
    ['', 0x00000000],
    ['a', 0xe8b7be43],
    ['123456789', 0xcbf43926],
    ['The quick brown fox jumps over the lazy dog', 0x414fa339],
  ];
  for (const [text, expected] of CASES) {
    it(`crc32(${JSON.stringify(text)}) = 0x${expected.toString(16).padStart(8, '0')}`, () => {
      expect(crc32(bytes(text))).toBe(expected);
    });
  }
});

describe('encodeMessage', () => {
  const CASES: Array<{ name: string; headers: Record<string, string>; payload: string }> = [
    {
      name: 'an event',
      headers: { ':event-type': 'messageStart', ':content-type': 'application/json', ':message-type': 'event' },
      payload: '{"role":"assistant"}',
    },
    {
      name: 'an exception',
      headers: { ':exception-type': 'throttlingException', ':message-type': 'exception' },
      payload: '{"message":"slow down"}',
    },
    { name: 'no headers, empty payload', headers: {}, payload: '' },
    { name: 'UTF-8 beyond ASCII', headers: { ':event-type': 'contentBlockDelta' }, payload: '{"text":"phare ⚓ über"}' },
    { name: 'a large payload', headers: { ':event-type': 'contentBlockDelta' }, payload: JSON.stringify({ p: 'x'.repeat(70_000) }) },
  ];
  for (const c of CASES) {
    it(`${c.name}: AWS's codec decodes it to the same headers and payload`, () => {
      const message = codec.decode(encodeMessage(c.headers, c.payload));
      expect(Object.fromEntries(Object.entries(message.headers).map(([k, v]) => [k, v]))).toEqual(
        Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k, { type: 'string', value: v }])),
      );
      expect(new TextDecoder().decode(message.body)).toBe(c.payload);
    });
  }

  it('writes the prelude and both CRCs where AWS reads them (a flipped byte anywhere is caught)', () => {
    const encoded = encodeMessage({ ':event-type': 'metadata' }, '{"usage":{}}');
    const view = new DataView(encoded.buffer, encoded.byteOffset);
    expect(view.getUint32(0)).toBe(encoded.byteLength);
    expect(view.getUint32(8)).toBe(crc32(encoded.subarray(0, 8)));
    expect(view.getUint32(encoded.byteLength - 4)).toBe(crc32(encoded.subarray(0, encoded.byteLength - 4)));
    for (const at of [1, 9, 14, encoded.byteLength - 6, encoded.byteLength - 1]) {
      const broken = encoded.slice();
      broken[at] ^= 0x01;
      expect(() => codec.decode(broken), `byte ${at}`).toThrow();
    }
  });
});
