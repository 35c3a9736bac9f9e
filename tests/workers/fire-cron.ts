/** The observatory's scheduled handler, run as the cron runs it, and waited for to the end of its waitUntil work. */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../workers/observatory/index.ts';
import { config } from './test-config.ts';

/** `cron`: which cron fired (the tick's by default; the concurrency runs have one of their own); `bindings`: the env it sees. */
export async function fireCron(scheduledTime: number, options: { cron?: string; bindings?: Env } = {}): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: options.cron ?? config.schedule, scheduledTime }), options.bindings ?? env, ctx);
  await waitOnExecutionContext(ctx);
}
