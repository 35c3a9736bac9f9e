/**
 * The outbox sends each channel on its own: a receiver that does not answer holds up no other channel,
 * each send has its own bound, and each takes a subrequest from the alarm's budget, so what the budget
 * refuses waits for the next alarm without using up an attempt. Its own channels on a keeper object of
 * its own, over real HTTP to the loopback receiver (tests/helpers/notify-receiver.ts).
 */
import { describe, expect, it } from 'vitest';
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { NotificationOutbox } from '../../workers/observatory/notify/outbox.ts';
import { SubrequestBudget } from '../../workers/observatory/subrequest-budget.ts';
import type { NotificationsConfig } from '../../shared/status/channels.ts';
import { expectConsoleErrors } from './console-errors.ts';
import { ERRORS_FIRED, opened, type Step } from '../helpers/incident-fixture.ts';

interface Received {
  path: string;
  headers: Record<string, string>;
  at: number;
}
/** Every run delivers at this time: a retry (5 s on) is never due within the test, however slow the machine. */
const NOW = Date.now();
/** The receiver behind `slow` answers this long after a request; the outbox gives a send SEND_TIMEOUT_MS. */
const RECEIVER_DELAY_MS = 5_000;
const SEND_TIMEOUT_MS = 500;

type Rows = Record<string, { state: string; attempts: number; next_at: number; last_error: string | null }>;

/** Queues each step's "opened" for every channel, delivers what is due with `budget`, and returns the outbox's rows by id. */
function deliverer(object: string, notifications: NotificationsConfig) {
  return (steps: Step[], budget: SubrequestBudget): Promise<Rows> =>
    runInDurableObject(env.STATUS_KEEPER.getByName(object), async (_, state) => {
      const outbox = new NotificationOutbox(state.storage, env, () => notifications, { sendTimeoutMs: SEND_TIMEOUT_MS });
      outbox.migrate();
      for (const s of steps) outbox.queue(s.incident, s.event, 'opened', NOW);
      await outbox.deliverDue(NOW, budget);
      const rows = state.storage.sql
        .exec<{ id: string; state: string; attempts: number; next_at: number; last_error: string | null }>(
          'SELECT id, state, attempts, next_at, last_error FROM deliveries',
        )
        .toArray();
      return Object.fromEntries(rows.map(({ id, ...r }) => [id, r]));
    });
}

/** What the receiver got under `prefix` (this file's paths). */
async function received(prefix: string): Promise<Received[]> {
  return ((await (await fetch(`${env.NOTIFY_URL}/_control/received`)).json()) as Received[]).filter((r) => r.path.startsWith(prefix));
}

describe('delivering the due messages', () => {
  it("sends each channel on its own: a receiver that does not answer delays no other channel's message", async () => {
    const logged = expectConsoleErrors(/delivery .* to slow failed/);
    const deliver = deliverer('notify-delivery-slow', {
      channels: [
        // Listed (and so queued) first: sent one after another, the fast channel would wait for it.
        { name: 'slow', type: 'slack', url: `{NOTIFY_URL}/nd-slow/delay-${RECEIVER_DELAY_MS}/hook` },
        { name: 'fast', type: 'slack', url: '{NOTIFY_URL}/nd-slow/fast' },
      ],
    });
    const first = opened('nd-slow-a', 'tiny', ['weur'], [ERRORS_FIRED]);
    const second = opened('nd-slow-b', 'tiny', ['weur'], [ERRORS_FIRED]);
    const rows = await deliver([first, second], new SubrequestBudget(50));

    const got = await received('/nd-slow/');
    const slow = got.filter((r) => r.path.includes('/delay-'));
    const fast = got.filter((r) => r.path.endsWith('/fast'));
    // The fast channel got both of its messages while the slow one's first was still unanswered.
    expect(fast.map((r) => r.headers['x-observatory-delivery'])).toEqual([`${first.incident.id}/e0/fast`, `${second.incident.id}/e0/fast`]);
    expect(fast[1].at - slow[0].at).toBeLessThan(RECEIVER_DELAY_MS / 2);
    expect(rows[`${first.incident.id}/e0/fast`]).toMatchObject({ state: 'delivered', attempts: 1 });
    expect(rows[`${second.incident.id}/e0/fast`]).toMatchObject({ state: 'delivered', attempts: 1 });
    // The slow send ended at its own bound, as no answer, and is retried; the rest of its channel waits for the next
    // alarm, without an attempt used up (one alarm waits for a dead receiver once).
    expect(rows[`${first.incident.id}/e0/slow`]).toMatchObject({ state: 'pending', attempts: 1, last_error: 'no_response' });
    expect(rows[`${second.incident.id}/e0/slow`]).toMatchObject({ state: 'pending', attempts: 0, next_at: NOW, last_error: null });
    expect(slow).toHaveLength(1);
    expect(logged.some((l) => /to slow failed \(attempt 1, will retry\): no_response: no answer within 500 ms/.test(l))).toBe(true);
  });

  it('takes each send from the budget: what it refuses waits for the next alarm, without losing an attempt', async () => {
    const deliver = deliverer('notify-delivery-budget', {
      channels: [
        { name: 'a', type: 'slack', url: '{NOTIFY_URL}/nd-budget/a' },
        { name: 'b', type: 'slack', url: '{NOTIFY_URL}/nd-budget/b' },
      ],
    });
    const steps = ['x', 'y', 'z'].map((t) => opened(`nd-budget-${t}`, 'tiny', ['weur'], [ERRORS_FIRED]));
    const budget = new SubrequestBudget(4);
    const rows = await deliver(steps, budget);
    const states = Object.values(rows);
    expect(states).toHaveLength(6);
    expect(budget.left).toBe(0);
    expect(states.filter((r) => r.state === 'delivered' && r.attempts === 1)).toHaveLength(4);
    // The two the budget refused: never sent, no attempt used, still due.
    const waiting = states.filter((r) => r.state === 'pending');
    expect(waiting).toEqual([
      { state: 'pending', attempts: 0, next_at: NOW, last_error: null },
      { state: 'pending', attempts: 0, next_at: NOW, last_error: null },
    ]);
    expect(await received('/nd-budget/')).toHaveLength(4);

    // The next alarm, with a budget of its own, sends them: every message once, in one attempt.
    const next = await deliver([], new SubrequestBudget(4));
    expect(Object.values(next).map((r) => [r.state, r.attempts])).toEqual(Array.from({ length: 6 }, () => ['delivered', 1]));
    const got = await received('/nd-budget/');
    expect(got).toHaveLength(6);
    expect(new Set(got.map((r) => r.headers['x-observatory-delivery'])).size).toBe(6);
  });
});
