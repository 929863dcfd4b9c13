-- The vault: one random AES-256 key per task with credentials, outside the append-only log.
-- Purging a task deletes its key in the same transaction as the purge's event.
CREATE TABLE vault_keys (
    task bigint PRIMARY KEY,
    key bytea NOT NULL CHECK (length(key) = 32),
    created_at bigint NOT NULL   -- ms since Unix epoch
);
