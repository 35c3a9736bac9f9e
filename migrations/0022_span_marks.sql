-- How far each region's span rollups (0021) are whole: every span of the region that ends at or before `through`
-- (ms, a whole hour) equals the hourly or daily rows it merges. The region's object writes it after each rollup
-- pass, held back by whatever that pass left undone (an hour, a day or a span still owed); a reader uses a region's
-- spans up to it and its hourly and daily rows beyond. Every region with rollups has a row: its object writes 0 (no
-- span whole yet) before the first rollup it writes, and an upgraded database's regions get 0 below.
CREATE TABLE span_marks (
  region TEXT PRIMARY KEY,
  through INTEGER NOT NULL
) WITHOUT ROWID;

-- The regions an upgraded database holds rollups of: marked 0, no span whole yet, until their objects have written
-- their past spans (a region no longer probed keeps this mark, and is read from its hourly and daily rows).
INSERT INTO span_marks (region, through)
  SELECT region, 0 FROM daily_rollups GROUP BY region
  UNION
  SELECT region, 0 FROM hourly_rollups GROUP BY region;
