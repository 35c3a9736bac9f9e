/**
 * The outbox routes each message by its channel's events, targets and regions, exactly once per event
 * and channel, and gives PagerDuty no reminder; a PagerDuty 400 is given up at once, a 429 retried.
 * Its own channels (the outbox is given them) on a keeper object of its own, delivered over real HTTP
 * to the loopback receiver.
 */
import { describe, expect, it } from 'vitest';
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { NotificationOutbox } from '../../workers/observatory/notify/outbox.ts';
import { SubrequestBudget } from '../../workers/observatory/subrequest-budget.ts';
import { PLAN_LIMITS } from '../../shared/config/plan-limits.ts';
import type { NotificationsConfig, NotifyEvent } from '../../shared/status/channels.ts';
import { expectConsoleErrors } from './console-errors.ts';
import { ERRORS_FIRED, escalated, opened, resolved, type Step } from '../helpers/incident-fixture.ts';

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  answered: number;
}

const notifications: NotificationsConfig = {
  channels: [
    { name: 'all', type: 'slack', url: '{NOTIFY_URL}/rt/all' },
    { name: 'only-x', type: 'slack', url: '{NOTIFY_URL}/rt/only-x', targets: ['rt-x'] },
    { name: 'only-apac', type: 'slack', url: '{NOTIFY_URL}/rt/only-apac', regions: ['apac'] },
    { name: 'only-resolved', type: 'slack', url: '{NOTIFY_URL}/rt/only-resolved', events: ['resolved'] },
    { name: 'pager', type: 'pagerduty', routingKeySecret: 'RT_PD_KEY', url: '{NOTIFY_URL}/pagerduty/rt/v2/enqueue', targets: ['rt-x'] },
    { name: 'pager-400', type: 'pagerduty', routingKeySecret: 'RT_PD_KEY', url: '{NOTIFY_URL}/pagerduty/status-400/rt', targets: ['rt-y'] },
    { name: 'pager-429', type: 'pagerduty', routingKeySecret: 'RT_PD_KEY', url: '{NOTIFY_URL}/pagerduty/status-429/rt', targets: ['rt-y'] },
  ],
};
const testEnv = { ...env, RT_PD_KEY: 'rt-routing-key' } as unknown as Env;
const keeper = () => env.STATUS_KEEPER.getByName('notify-routing-test');
/** Every run delivers at this time: a retry (5 s on) is never due within the test, however slow the machine. */
const NOW = Date.now();

/** Queues the messages, delivers what is due, and returns the outbox's rows of this file (state, attempts by id). */
async function run(messages: Array<[Step, NotifyEvent, string?]>): Promise<Record<string, { state: string; attempts: number }>> {
  return runInDurableObject(keeper(), async (_, state) => {
    const outbox = new NotificationOutbox(state.storage, testEnv, () => notifications);
    outbox.migrate();
    for (const [s, kind, suffix] of messages) outbox.queue(s.incident, s.event, kind, NOW, suffix);
    await outbox.deliverDue(NOW, new SubrequestBudget(PLAN_LIMITS.free.subrequestsPerInvocation));
    const rows = state.storage.sql
      .exec<{ id: string; state: string; attempts: number }>('SELECT id, state, attempts FROM deliveries')
      .toArray();
    return Object.fromEntries(rows.map((r) => [r.id, { state: r.state, attempts: r.attempts }]));
  });
}

/** What each route of this file received, as "path incident-kind". */
async function received(): Promise<string[]> {
  const all = (await (await fetch(`${env.NOTIFY_URL}/_control/received`)).json()) as Received[];
  return all
    .filter((r) => r.path.startsWith('/rt/') || r.path.includes('/rt'))
    .map((r) => {
      const [incident, event] = r.headers['x-observatory-delivery'].split('/');
      return `${r.path} ${incident.split('-').slice(1, 3).join('-')} ${event}`;
    });
}

describe('routing notifications per channel', () => {
  const x = opened('rt-x', 'tiny', ['weur'], [ERRORS_FIRED]);
  const y = opened('rt-y', 'tiny', ['apac'], [ERRORS_FIRED]);

  it('sends each channel only the targets, regions and events it is routed, each once', async () => {
    const logged = expectConsoleErrors(/delivery .* to pager-(400|429) failed/);
    const first = await run([
      [x, 'opened'],
      [y, 'opened'],
    ]);
    expect((await received()).sort()).toEqual(
      [
        '/rt/all rt-x e0',
        '/rt/all rt-y e0',
        '/rt/only-x rt-x e0',
        '/rt/only-apac rt-y e0',
        '/pagerduty/rt/v2/enqueue rt-x e0',
        '/pagerduty/status-400/rt rt-y e0',
        '/pagerduty/status-429/rt rt-y e0',
      ].sort(),
    );
    // PagerDuty's 400 is given up at once (retrying the same event cannot help); its 429 waits for a retry.
    expect(first[`${y.incident.id}/e0/pager-400`]).toEqual({ state: 'failed', attempts: 1 });
    expect(first[`${y.incident.id}/e0/pager-429`]).toEqual({ state: 'pending', attempts: 1 });
    expect(first[`${x.incident.id}/e0/pager`]).toEqual({ state: 'delivered', attempts: 1 });
    expect(logged.some((l) => /pager-400 failed \(attempt 1, refused, not retried\): rejected 400/.test(l))).toBe(true);
    expect(logged.some((l) => /pager-429 failed \(attempt 1, will retry\): http 429/.test(l))).toBe(true);
    expect(logged.join('\n')).not.toContain('rt-routing-key');

    // The same events again (a retried step): nothing more queued, nothing more sent.
    const before = (await received()).length;
    await run([
      [x, 'opened'],
      [y, 'opened'],
    ]);
    expect((await received()).length).toBe(before);

    // A reminder: every routed chat channel, never PagerDuty (it re-alerts by itself), and nothing queued for it.
    const reminded = await run([[escalated(x), 'reminder', 'r1']]);
    expect((await received()).slice(before).sort()).toEqual(['/rt/all rt-x r1', '/rt/only-x rt-x r1']);
    expect(Object.keys(reminded).filter((id) => id.includes('/r1/'))).toEqual([`${x.incident.id}/r1/all`, `${x.incident.id}/r1/only-x`]);

    // The resolutions: the resolved-only channel gets both, PagerDuty resolves the alert it triggered.
    const after = (await received()).length;
    const done = await run([
      [resolved(x), 'resolved'],
      [resolved(y), 'resolved'],
    ]);
    expect((await received()).slice(after).sort()).toEqual(
      [
        '/rt/all rt-x e1',
        '/rt/all rt-y e1',
        '/rt/only-x rt-x e1',
        '/rt/only-apac rt-y e1',
        '/rt/only-resolved rt-x e1',
        '/rt/only-resolved rt-y e1',
        '/pagerduty/rt/v2/enqueue rt-x e1',
        '/pagerduty/status-400/rt rt-y e1',
      ].sort(),
    );
    // pager-429's resolution waits behind its pending trigger: an incident's messages reach a channel in order.
    expect(done[`${y.incident.id}/e1/pager-429`]).toEqual({ state: 'pending', attempts: 0 });
  });
});
