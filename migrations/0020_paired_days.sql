-- A family's day of paired blocks (shared/rollup/paired-days.ts): the day's hourly rows of paired_hours of one
-- region, prompt variant and method version packed into one BLOB, written when the day has ended (with the daily
-- rollups, from the same hours). A long window reads one row a day of it, and hourly rows for its edges and for
-- any day not packed yet; kept as long as paired_hours.
CREATE TABLE paired_days (
  day INTEGER NOT NULL,
  region TEXT NOT NULL,
  prompt_variant TEXT NOT NULL,
  method_version INTEGER NOT NULL,
  packed BLOB NOT NULL,
  PRIMARY KEY (region, prompt_variant, method_version, day)
) WITHOUT ROWID;
