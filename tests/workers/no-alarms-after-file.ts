/**
 * Every Durable Object call in the Workers tests (an alarm too) first asks Vitest, over its RPC channel, to
 * resolve the Worker's main module. An alarm left set by a test file (a region's next probe, a keeper's next
 * judgement) that fires while the file's runtime is torn down leaves that call pending, and Vitest fails the whole
 * run with "Closing rpc while "resolve" was pending" though every test passed. So each file ends by deleting its
 * Durable Objects and their alarms (its runtime is its own: nothing of another file is touched).
 */
import { reset } from 'cloudflare:test';
import { afterAll } from 'vitest';

/** A margin for a call begun just before the reset to be answered (with none, 6 runs of the guard were clean too). */
const SETTLE_MS = 200;

afterAll(async () => {
  await reset();
  await new Promise((r) => setTimeout(r, SETTLE_MS));
});
