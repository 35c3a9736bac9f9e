-- Each region probes its tick's work in an order shuffled per tick and region (MEASUREMENT.md, "Order
-- within a tick"): each sample's place in it. Null on rows stored before, and on concurrency streams.
ALTER TABLE samples ADD COLUMN tick_position INTEGER;
ALTER TABLE burst_samples ADD COLUMN tick_position INTEGER;
