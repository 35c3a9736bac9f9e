/**
 * The guard of tests/workers/no-alarms-after-file.ts: alarms left due just as this file ends, one every 3 ms
 * across its teardown. Without the reset, each of them asks Vitest to resolve the Worker's module over a closing
 * channel ("Closing rpc while "resolve" was pending": printed on 3 or 4 runs of this file in 5 without it, none
 * with it, and a red CI run once).
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { expect, it } from 'vitest';

const OBJECTS = 300;
const SPACING_MS = 3;
/** Setting 300 alarms takes 1.5 to 2 s here; they fall due from then on, and the test ends halfway through them. */
const FIRST_DUE_MS = 2_500;
/** An alarm is never set closer than this to now: a busy machine sets the late ones later, not in the past. */
const MIN_LEAD_MS = 1_000;

it('ends with alarms due during its teardown, which the file reset deletes', async () => {
  const firstDue = Date.now() + FIRST_DUE_MS;
  const set = await Promise.all(
    Array.from({ length: OBJECTS }, (_, i) =>
      runInDurableObject(env.REGION_PROBER.getByName(`teardown-${i}`), async (_object, state) => {
        const due = Math.max(firstDue + i * SPACING_MS, Date.now() + MIN_LEAD_MS);
        await state.storage.setAlarm(due);
        return { due, read: await state.storage.getAlarm() };
      }),
    ),
  );
  expect(set.filter(({ due, read }) => read !== due)).toEqual([]);
  const lastDue = Math.max(...set.map(({ due }) => due));
  await new Promise((r) => setTimeout(r, Math.max(0, (firstDue + lastDue) / 2 - Date.now())));
});
