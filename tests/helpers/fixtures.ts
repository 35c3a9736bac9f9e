import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ApiId } from '../../shared/types.ts';

export const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/provider-streams/', import.meta.url));

export interface Fixture {
  name: string;
  provider: string;
  api: string;
  request: { method: string; url: string; body: unknown };
  response: { status: number; headers: Record<string, string>; body: string };
}

export function loadFixture(name: string): Fixture {
  const data = JSON.parse(readFileSync(FIXTURE_DIR + name, 'utf8'));
  return { name, ...data };
}

export function fixtureNames(): string[] {
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

/** The probe's api id for a recording's (provider, api) pair. */
export function apiIdOf(f: Fixture): ApiId {
  const byApi: Record<string, ApiId> = {
    'chat-completions': 'openai-chat',
    responses: 'openai-responses',
    messages: 'anthropic-messages',
    'gemini-generate-content': 'gemini',
    'ollama-chat': 'ollama',
    'cohere-chat-v2': 'cohere-chat',
    'cohere-chat-v1': 'cohere-chat-v1',
    'tgi-generate-stream': 'tgi-generate',
    'tgi-generate': 'tgi-generate',
  };
  const id = byApi[f.api];
  if (!id) throw new Error(`no api id for fixture api "${f.api}"`);
  return id;
}

/** Splits a body into reads: by byte size, or at every event boundary when size is 0. */
export function splitBody(body: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(body);
  if (size <= 0) return [bytes];
  const parts: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return parts;
}

/** A test clock: advances by `step` ms each time it is read, and by more when the fake wire says so. */
export type SteppingClock = (() => number) & { advance(ms: number): void };

/**
 * A fetch that answers with the recording, delivering the body in the given reads. With a clock,
 * the headers "arrive" `headersAfterMs` after the request, so the recording's own server-timing
 * claims (up to seconds) are plausible against the observed time to headers.
 */
export function replayFetch(f: Fixture, reads: Uint8Array[], clock?: SteppingClock, headersAfterMs = 0) {
  return async (_url: string, init?: RequestInit): Promise<Response> => {
    let i = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (init?.signal?.aborted) return controller.error(new DOMException('aborted', 'AbortError'));
          if (i < reads.length) controller.enqueue(reads[i++]);
          else controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const status = f.response.status;
    clock?.advance(headersAfterMs);
    return new Response(status === 204 ? null : body, { status, headers: f.response.headers });
  };
}

/** A clock that advances by one millisecond (or `step`) each time it is read. */
export function steppingClock(step = 1): SteppingClock {
  let t = 1000;
  const clock = (() => (t += step)) as SteppingClock;
  clock.advance = (ms) => {
    t += ms;
  };
  return clock;
}
