-- A snapshot's summary (what `dledger stats` prints: counts by state, bytes, sections, to-delete list, head),
-- sealed on its own like the snapshot: SHA-256(reducer_version ‖ seq ‖ event_hash ‖ "summary" ‖ summary).
-- Read without the snapshot's bytes, so that `stats` never decodes the tasks (docs/store.md). NULL in rows
-- written before this step: those are of an older reducer version and no longer read.
ALTER TABLE snapshots ADD COLUMN summary BLOB;
ALTER TABLE snapshots ADD COLUMN summary_digest BLOB;
