-- Where the tasks of a big add lie in its payload (`AddIndex`: marks every 64 tasks, the add without its tasks),
-- saved by the command that logged the add, so that `dledger audit ID` reads that task's part of the payload
-- alone. A pure cache like a snapshot: sealed to the chain, SHA-256("add index" ‖ seq ‖ event_hash ‖ bytes) as a
-- snapshot's digest is; one that does not hold, or a payload of another length, is read whole (docs/store.md).
CREATE TABLE add_index (
    seq INTEGER PRIMARY KEY,     -- the add's event
    event_hash BLOB NOT NULL,    -- the chain's hash at seq when it was saved
    bytes BLOB NOT NULL,
    digest BLOB NOT NULL
);
