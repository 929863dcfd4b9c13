-- The vault: credentials (an Authorization or Cookie header, a proxy's user and password)
-- never enter the event log in clear. Events hold them sealed with AES-256-GCM under a
-- random 256-bit key per task, kept here, outside the append-only log. Purging a task
-- deletes its key (writers run with secure_delete: the bytes are overwritten), so its
-- sealed values can never be opened again while the chain still verifies.
-- A copy of the file (backup) holds this table too.
CREATE TABLE vault_keys (
    task INTEGER PRIMARY KEY,                    -- the task whose credentials it seals
    key BLOB NOT NULL CHECK (length(key) = 32),  -- AES-256 key, from RAND_bytes
    created_at INTEGER NOT NULL                  -- ms since Unix epoch
);
