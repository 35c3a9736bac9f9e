/**
 * The status keeper's duties, in the order its alarm runs them: ticks whose deadline passed judged
 * (status-judge.ts), the open incidents' reminders queued and the incidents written to D1 (incident-duty.ts),
 * the status history's ended hours written (status-history.ts), and the notifications delivered
 * (notify/outbox.ts). Each owns its tables and says when it is next due; the alarm is set for the earliest.
 */
import { PLAN_LIMITS } from '../../../shared/config/plan-limits.ts';
import { getConfig } from '../config.ts';
import { OUTBOX_TABLES } from '../notify/outbox.ts';
import { SubrequestBudget } from '../subrequest-budget.ts';
import { markViews } from '../views/mark-views.ts';
import { incidentDuty } from './incident-duty.ts';
import { D1_RETRY_MS, type KeeperDuty, type KeeperParts } from './keeper-duty.ts';
import { HISTORY_TABLES } from './status-history.ts';
import { JUDGE_TABLES } from './status-judge.ts';

function judgeDuty(p: KeeperParts): KeeperDuty {
  return {
    name: 'judge',
    tables: JUDGE_TABLES,
    // Ticks whose deadline passed with a region still silent: judged without it.
    async run(now) {
      const windows = p.maintenanceWindows();
      p.storage.transactionSync(() => p.judge.judgeDue(now, windows));
    },
    nextAt: () => p.judge.nextDeadline(),
  };
}

function historyDuty(p: KeeperParts): KeeperDuty {
  let failed = false;
  return {
    name: 'history',
    tables: HISTORY_TABLES,
    async run(now) {
      const hourEnded = p.history.nextWriteAt(now) === now;
      failed = !(await p.history.writeEnded(p.env.DB, now));
      // An ended hour written: the history's views, and the incidents' (their 90 days move with the hours).
      if (hourEnded && !failed) await markViews(p.env, ['history', 'incidents', 'vendor-incidents']);
    },
    nextAt(now) {
      const at = p.history.nextWriteAt(now);
      return at === null ? null : Math.max(at, failed ? now + D1_RETRY_MS : 0);
    },
  };
}

function notificationDuty(p: KeeperParts): KeeperDuty {
  return {
    name: 'notifications',
    tables: OUTBOX_TABLES,
    // Each send is one of this alarm's subrequests (the plan's limit); what the budget refuses waits for the next alarm.
    async run(now) {
      await p.outbox.deliverDue(now, new SubrequestBudget(PLAN_LIMITS[getConfig().plan].subrequestsPerInvocation));
      p.outbox.prune();
    },
    nextAt: () => p.outbox.nextDue(),
  };
}

export const keeperDuties = (p: KeeperParts): KeeperDuty[] => [judgeDuty(p), incidentDuty(p), historyDuty(p), notificationDuty(p)];
