-- DownloadLedger event log in PostgreSQL (docs/postgres.md). Each named ledger is one schema
-- (dledger_NAME); these statements run with search_path set to it. Append-only: seq is gapless
-- from 1, and a hash chains every row to the one before (the same chain as in SQLite).

CREATE TABLE schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at bigint NOT NULL -- ms since Unix epoch
);

-- The counter row: the last seq, its commit time and its hash. Every append locks it (FOR UPDATE)
-- and moves it in its own transaction: seqs are gapless and commit in order, whatever the number
-- of writers. Never a sequence (a sequence leaves gaps and hands out numbers out of commit order).
CREATE TABLE head (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    seq bigint NOT NULL,
    time bigint NOT NULL,
    hash bytea NOT NULL
);
INSERT INTO head(seq, time, hash) VALUES (0, 0, decode(repeat('00', 32), 'hex'));

CREATE TABLE events (
    seq bigint PRIMARY KEY,     -- 1, 2, 3... without gaps
    time bigint NOT NULL,       -- commit time, ms since Unix epoch, never decreasing
    kind text NOT NULL,         -- event name, e.g. tasksAdded
    version bigint NOT NULL,    -- payload format version of this kind
    tasks text NOT NULL,        -- ids of the tasks touched: '7,8', '' when none
    payload bytea NOT NULL,     -- the event as compact UTF-8 JSON, byte for byte
    hash bytea NOT NULL         -- SHA-256(hash[seq-1] || canonical(row)): docs/store.md
);

-- Which events touch which task: the audit index, filled with each append.
CREATE TABLE event_tasks (
    task bigint NOT NULL,
    seq bigint NOT NULL,
    PRIMARY KEY (task, seq)
);

CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events is append-only: % refused', TG_OP;
END
$$;

CREATE TRIGGER events_refuse_update_delete BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION refuse_change();

CREATE TRIGGER events_refuse_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
