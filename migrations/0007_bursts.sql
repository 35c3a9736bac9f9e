-- Concurrency probes (README "Concurrency"): each run of a region sends `level` simultaneous streams to a
-- target, level after level. Their samples are stored like any other, with every column of `samples`, but in
-- a table of their own: the regular percentiles, rollups and status rules never see them, and they are
-- never pooled with single-stream probes. tick_id is the run's scheduled time; burst_id names one level of
-- one run (run, region, target, level); burst_stream numbers its streams from 0; start_offset_ms is when the
-- stream's request left, after the first of its level left.
CREATE TABLE burst_samples (
  id INTEGER PRIMARY KEY,
  tick_id INTEGER NOT NULL,
  region TEXT NOT NULL,
  target TEXT NOT NULL,
  prompt_variant TEXT NOT NULL,
  started_at REAL NOT NULL,
  colo TEXT,
  upstream_colo TEXT,
  colo_outside_region INTEGER,
  simulated INTEGER NOT NULL DEFAULT 0,
  backfill INTEGER NOT NULL DEFAULT 0,
  method_version INTEGER NOT NULL,
  api TEXT NOT NULL,
  model TEXT NOT NULL,
  warm INTEGER NOT NULL,
  status INTEGER,
  headers_ms REAL,
  first_byte_ms REAL,
  ttft_ms REAL,
  ttfa_ms REAL,
  total_ms REAL,
  output_tokens INTEGER,
  tokens_exact INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  input_tokens INTEGER,
  max_tokens INTEGER NOT NULL,
  tpot_ms REAL,
  decode_tps REAL,
  itl_p50_ms REAL,
  itl_p90_ms REAL,
  itl_p99_ms REAL,
  itl_max_ms REAL,
  chunks INTEGER NOT NULL,
  server_headers_ms REAL,
  server_timings TEXT NOT NULL,
  server_ttft_ms REAL,
  server_ttft_source TEXT,
  rtt_ms REAL,
  network_ms REAL,
  server_ms REAL,
  residual_ms REAL,
  split_source TEXT,
  finish_reason TEXT,
  error TEXT,
  error_detail TEXT,
  timeline TEXT NOT NULL,
  reasoning_tokens INTEGER,
  reasoning_streamed INTEGER,
  answer_tokens INTEGER,
  split_note TEXT,
  burst_id TEXT NOT NULL,
  burst_level INTEGER NOT NULL,
  burst_stream INTEGER NOT NULL,
  start_offset_ms REAL NOT NULL
);

-- The one index, as for samples: the idempotency key (a retried run writes nothing twice), whose leading
-- tick_id serves every time-window query.
CREATE UNIQUE INDEX burst_samples_key ON burst_samples (tick_id, region, target, burst_level, burst_stream);
