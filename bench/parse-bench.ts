/**
 * CPU time to parse and time one 1,000-token stream, per protocol: the probe's core (StreamMeter +
 * figures) against a naive reader (eventsource-parser + JSON.parse of every event, split lines +
 * JSON.parse for NDJSON, AWS's own event-stream codec + JSON.parse for Bedrock's binary stream), measured
 * in the same run, interleaved round by round.
 *
 *   npm run bench            # default rounds
 *   npm run bench -- --rounds 30 --json
 */
import { createParser } from 'eventsource-parser';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { StreamMeter } from '../shared/probe/stream-meter.ts';
import { fillFigures } from '../shared/probe/figures.ts';
import { protocolFor } from '../shared/probe/protocols/index.ts';
import { percentile } from '../shared/stats/percentile.ts';
import { METHOD_VERSION } from '../shared/constants.ts';
import type { Sample } from '../shared/types.ts';
import { STREAMS, TOKENS } from './synthetic-streams.ts';
import { bedrockConverseMessages, bedrockEvent } from './synthetic-bedrock.ts';
import { concatBytes } from '../shared/bytes.ts';

const WORKER_FREE_CPU_MS = 10;
const args = process.argv.slice(2);
const ROUNDS = Number(args[args.indexOf('--rounds') + 1]) || 15;
const STREAMS_PER_ROUND = 20;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function coreOnce(api: (typeof STREAMS)[number]['api'], reads: Uint8Array[]): number {
  const meter = new StreamMeter(protocolFor(api));
  let t = 0;
  for (const read of reads) meter.onRead(read, (t += 1));
  meter.onClose((t += 1));
  meter.settle();
  const sample = { timeline: [], server_timings: {} } as unknown as Sample;
  fillFigures(sample, { t0: 0, headersAt: 0.5, meter, headerTimings: null, rttMs: null, failed: false });
  return meter.state.tokenEvents + METHOD_VERSION * 0;
}

type Framing = 'sse' | 'ndjson' | 'aws-eventstream';
const awsCodec = new EventStreamCodec(toUtf8, fromUtf8);

function naiveOnce(framing: Framing, reads: Uint8Array[]): number {
  const decoder = new TextDecoder();
  const stamps: number[] = [];
  let parsed = 0;
  let t = 0;
  if (framing === 'aws-eventstream') {
    // AWS's own codec on whole messages, cut from a buffer joined read by read (as the SDK's splitter does).
    let pending = new Uint8Array(0);
    for (const read of reads) {
      stamps.push((t += 1));
      const joined = new Uint8Array(pending.length + read.length);
      joined.set(pending);
      joined.set(read, pending.length);
      let at = 0;
      while (joined.length - at >= 4) {
        const length = new DataView(joined.buffer, at).getUint32(0);
        if (joined.length - at < length) break;
        JSON.parse(toUtf8(awsCodec.decode(joined.subarray(at, at + length)).body));
        parsed++;
        at += length;
      }
      pending = joined.slice(at);
    }
  } else if (framing === 'sse') {
    const parser = createParser({
      onEvent(event) {
        if (event.data === '[DONE]') return;
        JSON.parse(event.data);
        parsed++;
      },
    });
    for (const read of reads) {
      stamps.push((t += 1));
      parser.feed(decoder.decode(read, { stream: true }));
    }
  } else {
    let pending = '';
    for (const read of reads) {
      stamps.push((t += 1));
      const lines = (pending + decoder.decode(read, { stream: true })).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines)
        if (line.trim()) {
          JSON.parse(line);
          parsed++;
        }
    }
  }
  return parsed;
}

interface Row {
  api: string;
  events: number;
  bytes: number;
  coreMs: number;
  naiveMs: number;
  ratio: number;
  coreP90Ms: number;
}
const rows: Row[] = [];
const encoder = new TextEncoder();
const cases: Array<{ api: (typeof STREAMS)[number]['api']; framing: Framing; reads: Uint8Array[] }> = [
  ...STREAMS.map((s) => ({ api: s.api, framing: s.framing, reads: s.events().map((e) => encoder.encode(e)) })),
  { api: 'bedrock-converse', framing: 'aws-eventstream', reads: bedrockConverseMessages() },
];
for (const s of cases) {
  const reads = s.reads;
  const bytes = reads.reduce((n, r) => n + r.byteLength, 0);
  const tokens = coreOnce(s.api, reads);
  if (tokens !== TOKENS) throw new Error(`${s.api}: core read ${tokens} token events, expected ${TOKENS}`);
  for (let i = 0; i < 20; i++) {
    coreOnce(s.api, reads);
    naiveOnce(s.framing, reads);
  } // warm-up
  const core: number[] = [];
  const naive: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let t = cpuMs();
    for (let i = 0; i < STREAMS_PER_ROUND; i++) coreOnce(s.api, reads);
    const c = (cpuMs() - t) / STREAMS_PER_ROUND;
    t = cpuMs();
    for (let i = 0; i < STREAMS_PER_ROUND; i++) naiveOnce(s.framing, reads);
    const n = (cpuMs() - t) / STREAMS_PER_ROUND;
    core.push(c);
    naive.push(n);
    ratios.push(n / c);
  }
  rows.push({
    api: s.api,
    events: reads.length,
    bytes,
    coreMs: percentile(core, 0.5)!,
    naiveMs: percentile(naive, 0.5)!,
    ratio: percentile(ratios, 0.5)!,
    coreP90Ms: percentile(core, 0.9)!,
  });
}

/**
 * Hostile input through the same core, fed in 64 KiB reads: each stops at its cap or reads through in
 * linear time (the end-to-end cases, with their classes, are tests/shared/probe/hostile-streams.timing.test.ts).
 */
function hostileMs(
  name: string,
  api: (typeof STREAMS)[number]['api'],
  head: string | Uint8Array,
  body: string | Uint8Array,
  bytes: number,
): { name: string; mib: number; ms: number; error: string | null } {
  const encoder = new TextEncoder();
  const asBytes = (x: string | Uint8Array) => (typeof x === 'string' ? encoder.encode(x) : x);
  const one = asBytes(body);
  const piece = concatBytes(Array(Math.max(1, Math.floor(65_536 / one.length))).fill(one));
  const first = asBytes(head);
  const times: number[] = [];
  let error: string | null = null;
  for (let r = 0; r < 5; r++) {
    const meter = new StreamMeter(protocolFor(api));
    const start = cpuMs();
    meter.onRead(first, 0);
    for (let sent = 0; sent < bytes && !meter.finished; sent += piece.length) meter.onRead(piece, 1);
    meter.onClose(2);
    times.push(cpuMs() - start);
    error = meter.state.protocolError;
  }
  return { name, mib: bytes / 1_048_576, ms: percentile(times, 0.5)!, error };
}
const learned = 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}\n\n';
const hostile = [
  hostileMs('a line without a newline', 'openai-chat', 'data: {"a":"', 'x', 12 * 1_048_576),
  hostileMs('a single huge token', 'openai-chat', 'data: {"choices":[{"index":0,"delta":{"content":"', 'y', 6 * 1_048_576),
  hostileMs('a comment flood', 'openai-chat', '', ': x\n', 8 * 1_048_576),
  hostileMs('events failing the template late', 'anthropic-messages', learned, learned.replace('"hi"}}', '"hi","x":1}}'), 4 * 1_048_576),
  // Bedrock: after a learned delta, 1 KiB tokens whose message has one more key at its end.
  hostileMs(
    'messages failing the template late',
    'bedrock-converse',
    bedrockEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'hi' }, p: 'abc' }),
    bedrockEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'y'.repeat(1024) }, p: 'abc', x: 1 }),
    4 * 1_048_576,
  ),
];

if (args.includes('--json')) {
  console.log(JSON.stringify({ node: process.version, rounds: ROUNDS, streamsPerRound: STREAMS_PER_ROUND, rows, hostile }));
} else {
  console.log(
    `CPU ms to parse and time one ${TOKENS}-token stream (one read per event), median of ${ROUNDS} rounds x ${STREAMS_PER_ROUND} streams, node ${process.version}`,
  );
  console.log('api                 events   bytes   core ms  core p90   naive ms  naive/core');
  for (const r of rows) {
    console.log(
      `${r.api.padEnd(18)} ${String(r.events).padStart(7)} ${String(r.bytes).padStart(7)} ${r.coreMs.toFixed(3).padStart(9)} ${r.coreP90Ms.toFixed(3).padStart(9)} ${r.naiveMs.toFixed(3).padStart(10)} ${r.ratio.toFixed(2).padStart(10)}x`,
    );
  }
  const slowest = rows.reduce((a, b) => (b.coreMs > a.coreMs ? b : a));
  const closest = rows.reduce((a, b) => (b.ratio < a.ratio ? b : a));
  const worst = Math.max(...rows.map((r) => r.coreP90Ms));
  console.log(
    `slowest format: ${slowest.api}, median ${slowest.coreMs.toFixed(3)} ms; lowest ratio: ${closest.api}, ${closest.ratio.toFixed(2)}x the naive reader`,
  );
  console.log(
    `worst core p90: ${worst.toFixed(3)} ms = ${((worst / WORKER_FREE_CPU_MS) * 100).toFixed(1)} % of the Workers free-plan ${WORKER_FREE_CPU_MS} ms CPU budget`,
  );
  console.log('\nhostile input in 64 KiB reads (median of 5): MiB sent, CPU ms, how it ended');
  for (const h of hostile)
    console.log(`${h.name.padEnd(34)} ${h.mib.toFixed(0).padStart(4)} ${h.ms.toFixed(1).padStart(8)}  ${h.error ?? 'read through'}`);
}
