-- Running totals per region × target × prompt variant × method version: what every hourly rollup
-- written so far adds up to (counts and histograms), kept in step with hourly_rollups in the same
-- transaction. GET /metrics reads these few rows for its Prometheus counters and histograms.
CREATE TABLE rollup_totals (
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
  PRIMARY KEY (region, target, prompt_variant, method_version)
) WITHOUT ROWID;
