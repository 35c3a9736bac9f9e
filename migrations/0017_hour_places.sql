-- Where each hour's samples were taken and answered (shared/rollup/hour-places.ts): per hour, region, target and
-- prompt variant, the samples and the newest, the colos they ran in, the places the vendor answered from (with the
-- successful probes' TTFT) and how its timing claims held against the round trip, each list as JSON. Written with
-- the hour's rollup from the same samples, so the catalog, "answered from" and the fidelity check of a window read
-- a row a pair and hour, not every sample.
CREATE TABLE hour_places (
  hour INTEGER NOT NULL,
  region TEXT NOT NULL,
  target TEXT NOT NULL,
  prompt_variant TEXT NOT NULL,
  samples INTEGER NOT NULL,
  last_started_at REAL NOT NULL,
  colos TEXT NOT NULL,
  served TEXT NOT NULL,
  fidelity TEXT NOT NULL,
  PRIMARY KEY (hour, region, target, prompt_variant)
) WITHOUT ROWID;
