/// Copies a whole log from one store into an empty one of any kind (SQLite to PostgreSQL and back): the same
/// seqs, commit times, rows and therefore the same hash chain, and the vault's keys with the first events.
/// Snapshots are a cache and are not copied (the destination's first writer saves one).
public enum EventStoreCopy {
    /// Copies every event of `source` up to its head when the copy starts into `destination`, which must be
    /// empty. Events that committed together at one time are appended together (an append stamps one time).
    /// - Returns: the destination's head.
    /// - Throws: `StoreError.cannotBackUp(destinationName, …)` when the destination already holds events, or when
    ///   its chain does not end on the source's hash; store errors of either side.
    public static func copy(
        from source: any EventStore, to destination: any EventStore, destinationName: String
    )
        throws -> Int64
    {
        guard try destination.head() == 0 else {
            throw StoreError.cannotBackUp(destinationName, "it already holds a ledger")
        }
        let last = try source.head()
        var keys: [VaultKey] = []
        for task in try source.vaultTasks() {
            if let key = try source.vaultKey(task: task) { keys.append(key) }
        }
        var head: Int64 = 0
        var group: [NewEvent] = []
        var groupTime: Int64 = 0
        func flush() throws {
            guard !group.isEmpty else { return }
            let vault = head == 0 ? VaultChange(added: keys) : .none
            head = try destination.append(group, expectingHead: head, time: groupTime, vault: vault)
            group.removeAll(keepingCapacity: true)
        }
        var after: Int64 = 0
        while after < last {
            let page = try source.events(after: after, through: last, limit: 10_000)
            guard !page.isEmpty else { break }
            for event in page {
                if event.time != groupTime || group.count >= 10_000 { try flush() }
                groupTime = event.time
                group.append(
                    NewEvent(
                        kind: event.kind, version: event.version, tasks: event.tasks, payload: event.payload))
            }
            after = page.last!.seq
        }
        try flush()
        let expected = try source.events(after: last - 1, through: last, limit: 1).last?.hash ?? []
        let copied = try destination.verifyChain()
        guard copied.isValid, copied.head == last, copied.headHash == expected || last == 0 else {
            throw StoreError.cannotBackUp(
                destinationName, "the copy's chain does not end on the ledger's (\(copied))")
        }
        return head
    }
}
