-- Where the vendor answered a sample (MEASUREMENT.md, "Where a sample was taken"): a vendor region,
-- PoP or routed provider, and the header, body field or URL part it came from. Null when the vendor
-- says nothing, and on every row stored before this column.
ALTER TABLE samples ADD COLUMN served_by TEXT;
ALTER TABLE samples ADD COLUMN served_by_source TEXT;
ALTER TABLE burst_samples ADD COLUMN served_by TEXT;
ALTER TABLE burst_samples ADD COLUMN served_by_source TEXT;
