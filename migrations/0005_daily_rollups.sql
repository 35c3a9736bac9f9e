-- Daily rollups: the hourly rollups of one UTC day × region × target × prompt variant × method
-- version, merged (same columns, the key's first column the day's start in ms). Each region's object
-- writes a day's rows from its hourly rows once the day has ended, and again when a late sample
-- rewrites one of its hours; so a 90-day page reads 90 rows per group instead of 2,160.
CREATE TABLE daily_rollups (
  day INTEGER NOT NULL,
  region TEXT NOT NULL,
  target TEXT NOT NULL,
  prompt_variant TEXT NOT NULL,
  method_version INTEGER NOT NULL,
  probes INTEGER NOT NULL,
  successes INTEGER NOT NULL,
  errors TEXT NOT NULL,
  ttft_ms BLOB NOT NULL,
  ttfa_ms BLOB NOT NULL,
  tpot_ms BLOB NOT NULL,
  itl_p99_ms BLOB NOT NULL,
  total_ms BLOB NOT NULL,
  decode_tps BLOB NOT NULL,
  split BLOB NOT NULL,
  PRIMARY KEY (day, region, target, prompt_variant, method_version)
) WITHOUT ROWID;

-- A database upgraded from 0004 gets the daily rows of its past hours from each region's object,
-- once, from the hourly rows already there (workers/observatory/region-prober.ts).

-- Where retention last cut each kind of data (`samples`): a rollup is rewritten from samples only for
-- hours at or after the cut, where no sample of the hour has been deleted.
CREATE TABLE retention_marks (
  kind TEXT PRIMARY KEY,
  before_ms INTEGER NOT NULL
) WITHOUT ROWID;
