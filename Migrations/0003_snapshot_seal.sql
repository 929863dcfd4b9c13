-- Snapshots are tied to the hash chain: each records the hash of the event it was taken at and a digest of
-- its own bytes (docs/store.md), checked when it is loaded; one that fails is skipped and the log replayed.
-- Snapshots written before this step have neither and are dropped: they are only a cache.
DELETE FROM snapshots;
ALTER TABLE snapshots ADD COLUMN event_hash BLOB;  -- events.hash at seq (32 zero bytes for seq 0)
ALTER TABLE snapshots ADD COLUMN digest BLOB;      -- SHA-256(reducer_version ‖ seq ‖ event_hash ‖ bytes)
