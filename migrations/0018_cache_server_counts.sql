-- The prompt-cache blocks' counts per figure (shared/rollup/cache-hours.ts): `n` and `wins` count TTFT's ticks (both
-- passes had a TTFT; the second's was lower), these server time's own (both passes had a server time; the second's
-- was lower). Null on every row written before them: the server-time discount then says its pairs and win rate are
-- unknown rather than show TTFT's.
ALTER TABLE cache_hours ADD COLUMN n_server INTEGER;
ALTER TABLE cache_hours ADD COLUMN wins_server INTEGER;
