-- Snapshots of the reduced state: a cache keyed by (reducer_version, seq), sealed to the chain
-- (event_hash, digest) with an optional summary sealed on its own, as in SQLite (docs/store.md).
CREATE TABLE snapshots (
    reducer_version bigint NOT NULL,
    seq bigint NOT NULL,          -- state after applying events 1...seq
    created_at bigint NOT NULL,   -- ms since Unix epoch
    bytes bytea NOT NULL,
    event_hash bytea NOT NULL,    -- events.hash at seq (32 zero bytes for seq 0)
    digest bytea NOT NULL,        -- SHA-256(reducer_version || seq || event_hash || bytes)
    summary bytea,
    summary_digest bytea,
    PRIMARY KEY (reducer_version, seq)
);
-- Stored as they are: compressing tens of MB on every save costs more than it saves.
ALTER TABLE snapshots ALTER COLUMN bytes SET STORAGE EXTERNAL;
