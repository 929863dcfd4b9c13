-- Snapshots of the reduced state: a pure cache keyed by (reducer_version, seq).
-- Deleting rows only costs replay time.
CREATE TABLE snapshots (
    reducer_version INTEGER NOT NULL,
    seq INTEGER NOT NULL,        -- state after applying events 1...seq
    created_at INTEGER NOT NULL, -- ms since Unix epoch
    bytes BLOB NOT NULL,
    PRIMARY KEY (reducer_version, seq)
) WITHOUT ROWID;
