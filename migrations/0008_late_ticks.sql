-- A tick the scheduler never delivered (a cron that did not fire, a dispatcher that died before it
-- reached a region) is run by the region itself once it is overdue: its samples say so. Concurrency
-- runs are never run late, but their table holds every column a sample has.
ALTER TABLE samples ADD COLUMN late INTEGER NOT NULL DEFAULT 0;
ALTER TABLE burst_samples ADD COLUMN late INTEGER NOT NULL DEFAULT 0;
