-- Method version 2 (MEASUREMENT.md): reasoning tokens and the answer-side TPOT, the no_answer class,
-- and the plausibility rule for server timing claims. Columns are only added: every row stored
-- under version 1 stays as it was (its new columns NULL), and the read API keeps versions apart.
ALTER TABLE samples ADD COLUMN reasoning_tokens INTEGER;
ALTER TABLE samples ADD COLUMN reasoning_streamed INTEGER;
ALTER TABLE samples ADD COLUMN answer_tokens INTEGER;
ALTER TABLE samples ADD COLUMN split_note TEXT;
