/**
 * The benchmark's Bedrock ConverseStream: the same 1,000 tokens as synthetic-streams.ts's streams, one
 * message per read, each delta padded as Bedrock pads them (`p`, of varying length).
 */
import { encodeEventStreamMessage } from '../shared/probe/aws-eventstream-encoder.ts';
import { TOKENS } from './synthetic-streams.ts';

const encoder = new TextEncoder();
const word = (i: number) => [' the', ' quick', ' brown', ' fox', ' jumps', ' over', ' lazy', ' dogs', '.', '\n'][i % 10];
const pad = (i: number) => 'abcdefghijklmnop'.slice(0, 3 + (i % 13));

/** An event message as Bedrock sends one: `:event-type`, `:content-type` and `:message-type` headers, a JSON payload. */
export function bedrockEvent(type: string, body: unknown): Uint8Array {
  return encodeEventStreamMessage(
    { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' },
    encoder.encode(JSON.stringify(body)),
  );
}

/** The stream's messages, one per read. */
export function bedrockConverseMessages(): Uint8Array[] {
  const reads = [bedrockEvent('messageStart', { p: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ', role: 'assistant' })];
  for (let i = 0; i < TOKENS; i++)
    reads.push(bedrockEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: word(i) }, p: pad(i) }));
  reads.push(
    bedrockEvent('contentBlockStop', { contentBlockIndex: 0, p: 'abcdefghijklmnopqrstuvwxyz' }),
    bedrockEvent('messageStop', { stopReason: 'max_tokens' }),
    bedrockEvent('metadata', { usage: { inputTokens: 64, outputTokens: TOKENS, totalTokens: TOKENS + 64 }, metrics: { latencyMs: 9000 } }),
  );
  return reads;
}
