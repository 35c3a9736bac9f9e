-- Vendor status pages (docs/STATUS.md, "Vendor status pages"): the incidents a vendor posted on the Atlassian
-- Statuspage its targets name (`statusPage`), as the poll last read them (workers/observatory/vendor-status.ts).
-- `page` is the configured address (or {VAR}), so a deployment and a local run keep the same rows. Times in epoch
-- ms; components (names) and updates ([{status, at}], oldest first) as JSON. A row is rewritten only when what is
-- kept of it changed; an incident that drops off the vendor's list of its 50 newest stays. Kept as long as rollups.
CREATE TABLE vendor_incidents (
  page TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  impact TEXT NOT NULL,
  status TEXT NOT NULL,
  components TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  resolved_at INTEGER,
  updated_at INTEGER NOT NULL,
  updates TEXT NOT NULL,
  shortlink TEXT,
  PRIMARY KEY (page, id)
) WITHOUT ROWID;

-- The read API's window (posted in it) and the retention delete.
CREATE INDEX vendor_incidents_created ON vendor_incidents (created_at);

-- Each page's poll state, written only when something changed: the validators of the last answer that brought a
-- change (sent back as If-None-Match / If-Modified-Since), each kept incident's fingerprint (JSON {id: hash}: only
-- changed incidents are rewritten), the first successful poll (what is compared starts there), the last poll that
-- brought a change, and the failure now holding (its kind, words and since when; null once a poll succeeds).
CREATE TABLE vendor_status_pages (
  page TEXT NOT NULL PRIMARY KEY,
  url TEXT NOT NULL,
  etag TEXT,
  last_modified TEXT,
  fingerprints TEXT NOT NULL,
  watched_since INTEGER,
  changed_at INTEGER,
  error_kind TEXT,
  error TEXT,
  error_since INTEGER
) WITHOUT ROWID;
