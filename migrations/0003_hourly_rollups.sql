-- Hourly rollups (shared/rollup.ts): one row per hour × region × target × prompt variant × method
-- version, with probe and error counts and one mergeable exponential histogram per latency figure
-- (shared/stats/exp-histogram.ts); the split's network and server parts per split_source in one BLOB.
-- Long windows read these rows instead of every sample. WITHOUT ROWID: the key is the table, so a
-- row costs no separate index entry.
CREATE TABLE hourly_rollups (
  hour INTEGER NOT NULL,
  region TEXT NOT NULL,
  target TEXT NOT NULL,
  prompt_variant TEXT NOT NULL,
  method_version INTEGER NOT NULL,
  probes INTEGER NOT NULL,
  successes INTEGER NOT NULL,
  -- Failed probes per error class, JSON.
  errors TEXT NOT NULL,
  ttft_ms BLOB NOT NULL,
  ttfa_ms BLOB NOT NULL,
  tpot_ms BLOB NOT NULL,
  itl_p99_ms BLOB NOT NULL,
  total_ms BLOB NOT NULL,
  decode_tps BLOB NOT NULL,
  split BLOB NOT NULL,
  PRIMARY KEY (hour, region, target, prompt_variant, method_version)
) WITHOUT ROWID;
