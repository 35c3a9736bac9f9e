-- The paired comparisons' hours of one region × prompt variant (a family, shared/rollup/paired-families.ts) read
-- without scanning every region's rows of the same hours: the compare views read a family's 90 days at a time.
CREATE INDEX paired_hours_by_family ON paired_hours (region, prompt_variant, method_version, hour);
