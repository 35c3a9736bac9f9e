-- Late reports (shared/status/judgement.ts): of the ticks each row counts, those whose region's report reached the
-- status keeper after it had judged the tick without it (at the tick's deadline). Their states are counted as usual;
-- this says how many came late. Rows written before this migration count none.
ALTER TABLE status_hours ADD COLUMN late INTEGER NOT NULL DEFAULT 0;
ALTER TABLE status_days ADD COLUMN late INTEGER NOT NULL DEFAULT 0;
