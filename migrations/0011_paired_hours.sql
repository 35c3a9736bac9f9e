-- The paired comparisons' hourly blocks (shared/rollup/paired-hours.ts): one row per region, prompt variant,
-- method version and hour, holding every pair of targets' block as JSON (paired ticks, A's wins, the median
-- ln(x_A / x_B) per figure). Written with the hour's rollup, from the same samples; kept as long as rollups.
CREATE TABLE paired_hours (
  hour INTEGER NOT NULL,
  region TEXT NOT NULL,
  prompt_variant TEXT NOT NULL,
  method_version INTEGER NOT NULL,
  blocks TEXT NOT NULL,
  PRIMARY KEY (hour, region, prompt_variant, method_version)
) WITHOUT ROWID;
