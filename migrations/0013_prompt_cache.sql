-- Prompt-cache probes (MEASUREMENT.md, "Prompt cache"). Which pass of one a sample is (1 or 2; null for any other
-- probe), and the input tokens a provider says it read from its prompt cache, on every sample (null when it says
-- nothing). Both null on every row stored before these columns.
ALTER TABLE samples ADD COLUMN cache_pass INTEGER;
ALTER TABLE samples ADD COLUMN cached_tokens INTEGER;
ALTER TABLE burst_samples ADD COLUMN cache_pass INTEGER;
ALTER TABLE burst_samples ADD COLUMN cached_tokens INTEGER;

-- Their hourly blocks (shared/rollup/cache-hours.ts): per region, target, prompt-cache variant, method version and
-- hour, the ticks where both passes succeeded (n), the second pass's wins, the median ln(second / first) of TTFT
-- and of server time, and the second passes' reported cached tokens (how many reported, how many more than none,
-- their sum). Written with the hour's rollup, from the same samples; kept as long as rollups.
CREATE TABLE cache_hours (
  hour INTEGER NOT NULL,
  region TEXT NOT NULL,
  target TEXT NOT NULL,
  prompt_variant TEXT NOT NULL,
  method_version INTEGER NOT NULL,
  n INTEGER NOT NULL,
  wins INTEGER NOT NULL,
  d_ttft REAL,
  d_server REAL,
  reported INTEGER NOT NULL,
  hits INTEGER NOT NULL,
  cached_sum INTEGER NOT NULL,
  PRIMARY KEY (hour, region, target, prompt_variant, method_version)
) WITHOUT ROWID;
