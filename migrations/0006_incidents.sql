-- Incidents, written by the status keeper (workers/observatory/status-keeper.ts): one row per
-- incident of one target × prompt variant, rewritten as it changes (a timeline of state changes,
-- the regions affected, the rules and their numbers, and the probes behind its chart, as JSON).
-- The keeper's own storage is the source of truth while an incident is open; a failed write here
-- is retried, and rewriting the same incident changes nothing.
CREATE TABLE incidents (
  id TEXT PRIMARY KEY,
  target TEXT NOT NULL,
  prompt_variant TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
  severity TEXT NOT NULL CHECK (severity IN ('degraded', 'down')),
  scope TEXT NOT NULL CHECK (scope IN ('target', 'regional')),
  regions TEXT NOT NULL,
  rules TEXT NOT NULL,
  opened_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  resolved_at INTEGER,
  timeline TEXT NOT NULL,
  points TEXT NOT NULL
) WITHOUT ROWID;

-- Newest first for the history and the feed.
CREATE INDEX incidents_opened ON incidents (opened_at);
