-- The live-activity board (docs/postgres.md): one row per host name whose downloader runs, replaced a few times
-- a second with what its transfers have received. Live data, never history: UNLOGGED, so its writes make no WAL
-- and a server crash empties it (the downloaders that still run write their row again within a second).
-- A reader believes a row only while `lock_backend` holds that host's run lock (pg_locks): a killed downloader's
-- session ended, and its row is ignored until the next downloader of that name replaces or withdraws it.
CREATE UNLOGGED TABLE activity (
    host text PRIMARY KEY,
    pid integer NOT NULL,            -- the downloader's process, on its host
    lock_backend integer NOT NULL,   -- pg_backend_pid() of the session that holds the host's run lock
    written_at bigint NOT NULL,      -- ms since Unix epoch, the writer's clock
    record bytea NOT NULL            -- the activity record's text (ActivityRecord), read with distrust
);
