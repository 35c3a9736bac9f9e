/** Scripted HTTP responses for the probe: exact times on a fake clock, or real delays, hangs and breaks. */
export interface Step {
  /** Fake-clock time at which this read is delivered (with `clock`), or a real delay in ms before it. */
  at?: number;
  delayMs?: number;
  data?: string;
  /** Break the body with an error instead of delivering data. */
  fail?: boolean;
  /** Never deliver anything again (until aborted). */
  hang?: boolean;
}

export interface Script {
  status?: number;
  headers?: Record<string, string>;
  /** Fake-clock time of the headers, or a real delay before fetch resolves; `hang` never resolves. */
  headersAt?: number;
  headersDelayMs?: number;
  hangHeaders?: boolean;
  rejectWith?: Error;
  steps: Step[];
}

export class FakeClock {
  t = 0;
  now = (): number => this.t;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function scriptedFetch(script: Script, clock?: FakeClock) {
  const encoder = new TextEncoder();
  return async (_url: string, init?: RequestInit): Promise<Response> => {
    const signal = init?.signal ?? undefined;
    if (script.rejectWith) throw script.rejectWith;
    if (script.hangHeaders) {
      await new Promise((_r, reject) =>
        signal?.addEventListener('abort', () => reject(new DOMException('The operation was aborted.', 'AbortError'))),
      );
    }
    if (script.headersDelayMs) await sleep(script.headersDelayMs);
    if (clock && script.headersAt !== undefined) clock.t = script.headersAt;
    let i = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const step = script.steps[i++];
          if (!step) return controller.close();
          if (step.delayMs) await sleep(step.delayMs);
          if (step.hang) {
            await new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve()));
            return controller.error(new DOMException('The operation was aborted.', 'AbortError'));
          }
          if (step.fail) return controller.error(new TypeError('terminated: other side closed'));
          if (clock && step.at !== undefined) clock.t = step.at;
          controller.enqueue(encoder.encode(step.data ?? ''));
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: script.status ?? 200, headers: script.headers ?? { 'content-type': 'text/event-stream' } });
  };
}

/** One OpenAI chat chunk as the wire carries it. */
export function chatChunk(delta: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
}
