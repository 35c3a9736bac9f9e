-- Span rollups (shared/rollup/spans.ts): the hourly rows of 2, 4 and 8 aligned hours (kept for today and yesterday)
-- and the daily rows of 4, 8, 16, 32 and 64 aligned days of one region × target × prompt variant × method version,
-- merged (the rollups' columns). `block` names the span: its start in ms plus its length in hours. Each region's
-- object writes a span once all its hours have ended, and again when one of its hours or days is rolled up anew;
-- retention deletes the spans of days that held a day it cuts (none is read from before the cut). A 90-day window
-- to now reads at most 35 rows per group instead of up to 136.
CREATE TABLE span_rollups (
  block INTEGER NOT NULL,
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
  PRIMARY KEY (block, region, target, prompt_variant, method_version)
) WITHOUT ROWID;

-- A database upgraded from 0020 gets the spans of its past hours and days from each region's object, a few
-- at a time (workers/observatory/rollup/rollup-duty.ts).
