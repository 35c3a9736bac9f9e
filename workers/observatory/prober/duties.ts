/**
 * The duties of a region's object, in the order its alarm runs them (duty.ts): the tick's probes, then a
 * late tick's, then the samples and concurrency streams D1 refused, the rollups and their OTLP push, the
 * status evaluation, and last one concurrency run. The archive runs on retention's call. A duty added is
 * one file and one line here; its tables are created with the object (ProberStore.migrate).
 */
import { archiveDuty } from '../archive/archive-duty.ts';
import { burstDuty } from '../bursts/burst-duty.ts';
import { burstOutboxDuty } from '../bursts/burst-outbox.ts';
import { evaluationDuty } from './evaluation-duty.ts';
import { otlpDuty } from '../rollup/otlp-duty.ts';
import { rollupDuty } from '../rollup/rollup-duty.ts';
import type { Duty } from '../duty/duty.ts';
import { heartbeatDuty } from './heartbeat-duty.ts';
import { probeDuty } from './probe-duty.ts';
import { sampleOutboxDuty } from './sample-outbox.ts';

export const PROBER_DUTIES: readonly Duty[] = [
  probeDuty,
  heartbeatDuty,
  sampleOutboxDuty,
  burstOutboxDuty,
  rollupDuty,
  otlpDuty,
  evaluationDuty,
  burstDuty,
  archiveDuty,
];
