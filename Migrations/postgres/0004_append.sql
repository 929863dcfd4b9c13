-- One append, one statement, one round trip: the client has chained the events after the head it
-- knows (p_expected, p_previous_hash); this locks the counter row, and when the head is still that
-- one inserts the rows, the audit links and the vault changes, moves the counter and notifies the
-- ledger's channel, all in the statement's transaction. Returns the new head, or -1 - head when the
-- head moved on (nothing written).
CREATE FUNCTION append_events(
    p_expected bigint, p_previous_hash bytea, p_time bigint, p_new_hash bytea,
    p_kinds text[], p_versions bigint[], p_tasks text[], p_payloads bytea[], p_hashes bytea[],
    p_link_tasks bigint[], p_link_seqs bigint[],
    p_removed_keys bigint[], p_added_tasks bigint[], p_added_keys bytea[], p_channel text
) RETURNS bigint LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    current_seq bigint;
    current_hash bytea;
    added integer := coalesce(cardinality(p_kinds), 0);
BEGIN
    SELECT h.seq, h.hash INTO current_seq, current_hash FROM head h FOR UPDATE;
    IF current_seq <> p_expected OR current_hash <> p_previous_hash THEN
        RETURN -1 - current_seq;
    END IF;
    DELETE FROM vault_keys WHERE task = ANY (p_removed_keys);
    INSERT INTO vault_keys(task, key, created_at)
        SELECT k.task, k.key, p_time FROM unnest(p_added_tasks, p_added_keys) AS k(task, key);
    IF added > 0 THEN
        INSERT INTO events(seq, time, kind, version, tasks, payload, hash)
            SELECT p_expected + e.n, p_time, e.kind, e.version, e.tasks, e.payload, e.hash
            FROM unnest(p_kinds, p_versions, p_tasks, p_payloads, p_hashes)
                WITH ORDINALITY AS e(kind, version, tasks, payload, hash, n);
        INSERT INTO event_tasks(task, seq)
            SELECT l.task, l.seq FROM unnest(p_link_tasks, p_link_seqs) AS l(task, seq);
        UPDATE head SET seq = p_expected + added, time = p_time, hash = p_new_hash;
        PERFORM pg_notify(p_channel, (p_expected + added)::text);
    END IF;
    RETURN p_expected + added;
END
$$;
