-- The status keeper's judgement over time (shared/status/period-tally.ts): per hour and per UTC day, per target,
-- prompt variant and region ('*' for the target as a whole), how many ticks it judged operational, degraded, down,
-- in maintenance or without data, and what the worst tick's evidence said. Written by the keeper once an hour (the
-- day's row with it, its counts so far); the status page's strips, the badges' history and the uptime reports read
-- these and nothing else.
CREATE TABLE status_hours (
  hour INTEGER NOT NULL,
  target TEXT NOT NULL,
  prompt_variant TEXT NOT NULL,
  region TEXT NOT NULL,
  operational INTEGER NOT NULL,
  degraded INTEGER NOT NULL,
  down INTEGER NOT NULL,
  maintenance INTEGER NOT NULL,
  no_data INTEGER NOT NULL,
  note TEXT,
  PRIMARY KEY (hour, target, prompt_variant, region)
) WITHOUT ROWID;

CREATE TABLE status_days (
  day INTEGER NOT NULL,
  target TEXT NOT NULL,
  prompt_variant TEXT NOT NULL,
  region TEXT NOT NULL,
  operational INTEGER NOT NULL,
  degraded INTEGER NOT NULL,
  down INTEGER NOT NULL,
  maintenance INTEGER NOT NULL,
  no_data INTEGER NOT NULL,
  note TEXT,
  PRIMARY KEY (day, target, prompt_variant, region)
) WITHOUT ROWID;

-- Maintenance windows made through the admin API (POST /api/v1/maintenance; those of the configuration are not
-- stored): a target or all ('*'), a region or all ('*'), from starts_at to ends_at (epoch ms), with a note.
CREATE TABLE maintenance (
  id TEXT PRIMARY KEY,
  target TEXT NOT NULL,
  region TEXT NOT NULL,
  starts_at INTEGER NOT NULL,
  ends_at INTEGER NOT NULL,
  note TEXT NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
