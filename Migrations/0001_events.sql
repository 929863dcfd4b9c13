-- DownloadLedger event log. Append-only: seq is gapless from 1,
-- and a hash chains every row to the one before.
-- 0x444C4752, "DLGR": marks the file as a DownloadLedger ledger.
PRAGMA application_id = 1145849682;

CREATE TABLE schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL -- ms since Unix epoch
);

CREATE TABLE events (
    seq INTEGER PRIMARY KEY,     -- 1, 2, 3... without gaps
    time INTEGER NOT NULL,       -- commit time, ms since Unix epoch, never decreasing
    kind TEXT NOT NULL,          -- event name, e.g. tasksAdded
    version INTEGER NOT NULL,    -- payload format version of this kind
    tasks TEXT NOT NULL,         -- ids of the tasks touched: "7,8", '' when none
    payload TEXT NOT NULL,       -- the event as compact JSON (json_extract works on it)
    hash BLOB NOT NULL           -- SHA-256(hash[seq-1] || canonical(row)): docs/store.md
);

-- Which events touch which task: the audit index, filled with each append.
CREATE TABLE event_tasks (
    task INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (task, seq)
) WITHOUT ROWID;

CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events is append-only: UPDATE refused');
END;

CREATE TRIGGER events_refuse_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events is append-only: DELETE refused');
END;
