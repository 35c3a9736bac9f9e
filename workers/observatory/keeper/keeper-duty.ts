/** The shape of a status keeper's duty (keeper-duties.ts lists them) and what they work on. */
import type { MaintenanceWindow } from '../../../shared/status/maintenance.ts';
import type { NotificationOutbox } from '../notify/outbox.ts';
import type { KeeperHistory } from './status-history.ts';
import type { TickJudge } from './status-judge.ts';

/** Wait before writing to D1 again after it failed. */
export const D1_RETRY_MS = 30_000;

export interface KeeperDuty {
  readonly name: string;
  /** Its tables' CREATE TABLE statements. */
  readonly tables: readonly string[];
  /** Its step in the alarm. */
  run(now: number): Promise<void>;
  /** When its next step is due (null: nothing waits). */
  nextAt(now: number): number | null;
}

/** What the keeper's duties work on: its storage and the parts that hold their tables. */
export interface KeeperParts {
  readonly storage: DurableObjectStorage;
  readonly env: Env;
  readonly judge: TickJudge;
  readonly history: KeeperHistory;
  readonly outbox: NotificationOutbox;
  maintenanceWindows(): MaintenanceWindow[];
}
