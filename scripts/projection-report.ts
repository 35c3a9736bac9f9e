/**
 * `npm run capacity -- --project <regions>x<targets> --every <minutes>` (`--project scale`: 30x100 every
 * minute): the projection of shared/config/projection.ts, printed as it is asked and as it keeps running.
 */
import {
  ARCHIVE_BYTES_PER_SAMPLE,
  ARCHIVE_READS_PER_DAY_ASSUMED,
  D1_BYTES_PER_DAILY_ROLLUP,
  D1_BYTES_PER_HOURLY_ROLLUP,
  D1_BYTES_PER_SAMPLE,
  D1_QUERIES_PER_SECOND,
  keepRunning,
  project,
  scaledConfig,
  type Projection,
} from '../shared/config/projection.ts';
import { tickMinutesOf } from '../shared/config/schedule.ts';
import type { ObservatoryConfig } from '../shared/config/types.ts';

/** The scale issue 25 sizes the observatory for. */
const SCALE = { regions: 30, targets: 100, everyMinutes: 1 } as const;

const n = (x: number) => Math.round(x).toLocaleString('en');
const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`;
const dollars = (x: number) => `$${x.toLocaleString('en', { maximumFractionDigits: 0 })}`;

function lines(p: Projection): void {
  const c = p.config;
  const d = p.perDay;
  console.log(
    `  samples a day: ${n(p.samplesAskedPerDay)} asked${p.spread > 1 ? `; a region cannot finish its tick (3 probes at once, ${c.probeSecondsEstimate} s each), so the scheduler spreads each tick's work over ${p.spread} ticks: ${n(p.samplesPerDay)} run, each pair every ${p.spread * (tickMinutesOf(c.schedule) ?? 1)} min` : ''}`,
  );
  console.log(
    `  D1 storage: ${gb(p.d1BytesOnDay(1))} after a day, ${gb(p.d1BytesSteady)} once retention deletes as much as a day adds (raw samples ${c.retentionDays} days at ${D1_BYTES_PER_SAMPLE} bytes, hourly rollups ${c.rollupRetentionDays} days at ${n(D1_BYTES_PER_HOURLY_ROLLUP)} bytes, daily rows at ${n(D1_BYTES_PER_DAILY_ROLLUP)}), of 10 GB`,
  );
  console.log(
    `  D1 writes: ${n(p.d1WriteQueriesPerSecond)} write queries a second (${n(p.d1RowsWrittenPerSecond)} rows written a second), of the ~${n(D1_QUERIES_PER_SECOND)} a second one database runs at 1 ms a query`,
  );
  console.log(
    `  per day: D1 rows written ${n(d.d1RowsWritten)}, read ${n(d.d1RowsRead)}; DO requests ${n(d.doRequests)}, duration ${n(d.doGbSeconds)} GB-s, storage rows written ${n(d.doRowsWritten)}; Worker requests ${n(d.workerRequests)}; R2 Class A ${n(d.r2ClassA)}, Class B ${n(d.r2ClassB)}`,
  );
  console.log(`  R2: ${gb(p.samplesPerDay * ARCHIVE_BYTES_PER_SAMPLE)} of archives a day, ${gb(p.r2BytesAfterYear)} after a year`);
  // The tick's length is said above: the scheduler spreads rather than breaks.
  for (const l of p.limits.slice(1)) {
    const past = l.hard ? 'breaks' : 'billed beyond it';
    const when =
      l.breaksOnDay === null
        ? l.hard
          ? 'holds'
          : 'within it'
        : l.breaksOnDay === 0
          ? `${past} from the first day`
          : `${past} ${l.hard ? 'on' : 'from'} day ${l.breaksOnDay}`;
    const share = l.unit === 'a day' && l.limit > 0 ? ` (${((l.use / l.limit) * 100).toFixed(0)} % of it)` : '';
    console.log(`  ${l.hard ? 'limit' : 'billed'}: ${l.name}: ${when}${share}`);
  }
  console.log(
    `  first hard limit to break: ${p.firstBreak ? `${p.firstBreak.name}, ${p.firstBreak.breaksOnDay === 0 ? 'from the first day' : `on day ${p.firstBreak.breaksOnDay}`}` : 'none'}`,
  );
  const parts = Object.entries(p.dollarsPerMonth.parts)
    .filter(([, x]) => x >= 0.5)
    .sort((a, b) => b[1] - a[1])
    .map(([k, x]) => `${k} ${dollars(x)}`);
  console.log(`  paid plan: about ${dollars(p.dollarsPerMonth.total)} a month (${parts.join(', ')})`);
}

export function printProjection(base: ObservatoryConfig, size: string, everyMinutes: number): void {
  const m = /^(\d+)x(\d+)$/.exec(size);
  const [regions, targets, every] =
    size === 'scale' ? [SCALE.regions, SCALE.targets, SCALE.everyMinutes] : m ? [Number(m[1]), Number(m[2]), everyMinutes] : [0, 0, 0];
  if (!(regions > 0 && targets > 0 && Number.isInteger(every) && every >= 1 && 60 % every === 0)) {
    console.error(
      'usage: npm run capacity -- --project <regions>x<targets> [--every <minutes, a divisor of 60>] (or --project scale: 30x100 every minute)',
    );
    process.exitCode = 1;
    return;
  }
  const asked = scaledConfig(base, regions, targets, every);
  console.log(
    `\nprojection: ${regions} regions × ${targets} targets, prompt variant ${asked.promptVariants[0].id}, a tick every ${every} min, paid plan, as configured (raw samples ${asked.retentionDays} days, rollups ${asked.rollupRetentionDays} days, every day archived to R2)`,
  );
  lines(project(asked));
  const keep = keepRunning(asked);
  console.log(
    `\nwhat keeps it running: raw samples ${keep.retentionDays} days in D1 and every UTC day archived to R2 as Parquet, rollups ${keep.rollupRetentionDays} days in D1 (archived too: longer windows read the archives), the scheduler's spreading; Workers, Durable Objects, D1 and R2 only`,
  );
  lines(project(keep));
  console.log(
    `\nassumptions: the archive's R2 operations and D1 reads are the capacity model's (measured: a file PUT and a manifest PUT per region, table and day, and their HEADs and GETs); analysts' reads ${n(ARCHIVE_READS_PER_DAY_ASSUMED)} GETs (Class B) a day from the bucket's public URL (through the API's /archive/ each is a HEAD and a GET); ${ARCHIVE_BYTES_PER_SAMPLE} bytes of Parquet a sample (measured 151 to 159 on a day of copies of one sample); D1 storage counts samples and rollups (the other tables are small beside them); prices and limits read 2026-12-01 (shared/config/projection.ts)`,
  );
}
