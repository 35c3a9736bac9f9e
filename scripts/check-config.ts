/** `npm run capacity`: validates observatory.config.ts and prints what it costs per day against its plan. */
import { config } from '../observatory.config.ts';
import { ConfigError, validateConfig } from '../shared/config/validate.ts';
import { capacity, PLAN_LIMITS } from '../shared/config/capacity.ts';
import { reasoningBudgetWarnings } from '../shared/config/reasoning-budget.ts';

try {
  validateConfig(config);
} catch (e) {
  if (!(e instanceof ConfigError)) throw e;
  console.error(e.message);
  process.exit(1);
}
const c = capacity(config);
const l = PLAN_LIMITS[config.plan];
const pct = (used: number, limit: number) => `${Math.round(used).toLocaleString('en')} of ${Math.round(limit).toLocaleString('en')} (${((used / limit) * 100).toFixed(1)} %)`;
const allowance = l.hardDailyLimits ? 'daily limit' : 'included per day';
console.log(`observatory.config.ts is valid: ${config.regions.length} regions, ${config.targets.length} targets, ${config.promptVariants.length} prompt variants, a tick every ${c.tickMinutes} min (${c.ticksPerDay}/day), ${config.plan} plan`);
console.log(`  probes per region and tick: ${Object.entries(c.probesPerRegionTick).map(([r, n]) => `${r} ${n}`).join(', ')}`);
console.log(`  probes per day:             ${Math.round(c.probesPerDay / c.spread).toLocaleString('en')}`);
console.log(`  D1 rows written per day:    ${pct(c.d1RowsWrittenPerDay / c.spread, l.d1RowsWrittenPerDay)} ${allowance}`);
console.log(`  D1 rows read per day:       ${pct(c.d1RowsReadPerDay / c.spread, l.d1RowsReadPerDay)} ${allowance} (rollups; site builds and API reads come on top)`);
console.log(`  DO storage rows written:    ${pct(c.doRowsWrittenPerDay / c.spread, l.doRowsWrittenPerDay)} ${allowance}`);
console.log(`  Durable Object requests:    ${pct(c.doRequestsPerDay / c.spread, l.doRequestsPerDay)} ${allowance}`);
console.log(`  Durable Object GB-s:        ${pct(c.doGbSecondsPerDay / c.spread, l.doGbSecondsPerDay)} ${allowance}`);
console.log(`  subrequests per invocation: ${c.subrequestsPerProbeInvocation} of ${l.subrequestsPerInvocation}`);
console.log(c.spread > 1 ? `  each tick runs 1/${c.spread} of the work, limited by ${c.bindingLimit}` : '  every tick runs all of its work');
for (const w of reasoningBudgetWarnings(config)) console.warn(`warning: ${w.message}`);
