-- Time profiles (shared/rollup/hour-profile.ts): per region, target, prompt variant, method version and UTC day,
-- the day's 24 hours as JSON [[successful probes, TTFT p50 ms or null], …], written with the day's daily rollup from
-- its hourly rows. An hour-of-day × day-of-week view of four weeks then reads one row a day, not 24.
CREATE TABLE hour_profiles (
  day INTEGER NOT NULL,
  region TEXT NOT NULL,
  target TEXT NOT NULL,
  prompt_variant TEXT NOT NULL,
  method_version INTEGER NOT NULL,
  hours TEXT NOT NULL,
  PRIMARY KEY (day, region, target, prompt_variant, method_version)
) WITHOUT ROWID;
