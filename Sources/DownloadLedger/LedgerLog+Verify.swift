import Foundation

extension LedgerLog {
    /// ``Ledger/verify(checkFiles:checksums:)`` of the ledger at `path`, opened read-only without its projection: the
    /// replay and the live projection are each held alone, and compared by the digest of their encoding
    /// (`dledger verify` of 100,000 tasks holds one list at a time).
    /// - Throws: `LedgerOpenError.noLedger` when there is no file; `StoreError` when it is not a ledger;
    ///   `LedgerOpenError.unreadableEvent` when its projection cannot be computed, as opening it would.
    ///
    /// `host`: on a ledger shared by several hosts, the host this check runs on: finished files another host
    /// downloaded are on that host's disk, and are counted (``VerifyReport/filesElsewhere``) rather than checked.
    /// Nil checks every file.
    public static func verify(
        path: String, checkFiles: Bool = true, checksums: Bool = false, host: String? = nil
    ) throws
        -> VerifyReport
    {
        let store = try StoreFactory.openExisting(readingOnly: path)
        return try verify(store, checkFiles: checkFiles, checksums: checksums, opening: true, host: host)
    }

    /// `opening`: the store was opened for this check alone; a live projection that cannot be computed is then the
    /// error opening the ledger gives (an open ledger has one: a failure now is a problem found).
    ///
    /// No list is held beside another, and no encoding of one is held at all: each is hashed as it is written
    /// (`snapshotBytes(inPieces:)`). The replay reserves the live list's count of tasks up front and keeps its
    /// undo history by reference to the log, as a snapshot does, so a big add is not held decoded beside its tasks.
    static func verify(
        _ store: any EventStore, checkFiles: Bool, checksums: Bool, opening: Bool, host: String? = nil
    ) throws
        -> VerifyReport
    {
        // The live projection first (latest snapshot plus tail), kept only as the digest of its encoding.
        let opened = opening ? try liveDigest(store) : nil
        var problems: [String] = []
        let chain = try store.verifyChain()
        if let p = chain.firstProblem {
            problems.append("hash chain broken at event #\(p.seq): \(p.reason)")
        }
        if let index = try store.verifyIndex() { problems.append("\(index)") }
        problems += try store.snapshotProblems(reducerVersion: DownloadList.reducerVersion).map(\.description)
        // Before the replay is held: each indexed add is read again (its outline, no task made).
        problems += try addIndexProblems(store)
        let version = DownloadList.reducerVersion
        let snapshotSeq = try store.latestSnapshotSeq(reducerVersion: version, atOrBefore: nil)
        var replayed = DownloadList()
        do {
            // The snapshot's summary is read before any list is held: reaching it walks past the snapshot's pages.
            // Nil when the snapshot has no summary of its own; a summary sealed but unreadable is named.
            let summary = try snapshotSeq.flatMap { snapshotSeq in
                try store.withLatestSummary(reducerVersion: version, atOrBefore: snapshotSeq) { seq, bytes in
                    seq == snapshotSeq ? .some(try? ListSummary(encoded: bytes)) : nil
                } ?? nil
            }
            let live = try opened ?? liveDigest(store)
            replayed.reserveTasks(live.tasks)
            let actions = Self.comparedOnly
            // The replay's digest, taken in the same pass as the snapshot's when no event follows the snapshot.
            var digestAtSnapshot: [UInt8]?
            if let snapshotSeq {
                digestAtSnapshot = try compare(
                    replayingThrough: snapshotSeq, of: store, chainHead: chain.head, summary: summary,
                    into: &replayed, problems: &problems)
            }
            let head = replayed.head
            try fold(store, into: &replayed, through: nil, actionsLoggedIn: actions)
            let replayDigest =
                replayed.head == head && digestAtSnapshot != nil ? digestAtSnapshot! : digest(of: replayed)
            if replayDigest != live.digest, try replayed != liveProjection(store) {
                problems.append("replay from zero differs from the live projection")
            }
        } catch {
            problems.append("\(error)")
        }
        var checked = 0
        var elsewhere = 0
        if checkFiles {
            let files = Self.checkFiles(of: replayed, checksums: checksums, host: host)
            checked = files.checked
            elsewhere = files.elsewhere
            problems += files.problems
        }
        return VerifyReport(
            events: chain.rowCount, head: chain.head, snapshotSeq: snapshotSeq, filesChecked: checked,
            filesElsewhere: elsewhere, problems: problems)
    }

    /// Each saved add index whose seal fails, or that is not the index of the add logged at its seq (built again
    /// from the payload: `audit` would say what it says).
    static func addIndexProblems(_ store: any EventStore) throws -> [String] {
        var problems: [String] = []
        for seq in try store.addIndexSeqs() {
            let held = try store.withAddIndex(seq: seq) { bytes, _, _ in Array(bytes) }
            guard let held else {
                problems.append(
                    "add index at #\(seq): not loaded (its event is gone, or its seal fails: changed after it was saved)"
                )
                continue
            }
            let rebuilt = try store.events(after: seq - 1, through: seq, limit: 1).first.flatMap { stored in
                try? Array(stored.kind.utf8).withUnsafeBytes { kind in
                    try stored.payload.withUnsafeBytes { payload in
                        try Entry.decode(kind: kind, payload: payload, keepingOnly: DownloadList.noTask)
                            .outline
                            .flatMap { AddIndex(outline: $0, payload: payload)?.encoded() }
                    }
                }
            }
            if rebuilt != held {
                problems.append("add index at #\(seq) differs from the add it was saved for")
            }
        }
        return problems
    }

    /// Folds the log through the latest snapshot's seq into `replayed` and compares it with that snapshot (its bytes,
    /// or as a list when they differ) and with the snapshot's own summary (`summary`: nil when it has none, `.some(nil)`
    /// when it cannot be read); what differs is added to `problems`.
    /// - Returns: the replay's digest, taken in the same pass, when no event follows the snapshot (`chainHead`).
    private static func compare(
        replayingThrough snapshotSeq: Int64, of store: any EventStore, chainHead: Int64,
        summary: ListSummary??,
        into replayed: inout DownloadList, problems: inout [String]
    ) throws -> [UInt8]? {
        let version = DownloadList.reducerVersion
        var digestAtSnapshot: [UInt8]?
        try fold(store, into: &replayed, through: snapshotSeq, actionsLoggedIn: comparedOnly)
        let plain = chainHead == snapshotSeq ? FileDigest.Stream() : nil
        var written = false
        // The replay encodes to the sealed bytes (the usual case), or is compared as a list: another
        // encoding of the same list is no problem.
        let holds = try store.snapshotHolds(reducerVersion: version, seq: snapshotSeq) { piece in
            replayed.snapshotBytes { bytes in
                piece(bytes)
                plain?.update(bytes)
            }
            written = true
        }
        if written { digestAtSnapshot = plain?.finish() }
        if !holds {
            let cached = try store.withLatestSnapshot(
                reducerVersion: version, atOrBefore: snapshotSeq
            ) {
                seq, bytes in seq == snapshotSeq ? try? DownloadList(snapshot: bytes) : nil
            }
            if let cached = cached ?? nil {
                if cached != replayed {
                    problems.append("snapshot at #\(snapshotSeq) differs from the replay of the log")
                }
            } else {
                problems.append("snapshot at #\(snapshotSeq) cannot be read")
            }
        }
        if case .some(nil) = summary {
            problems.append("the summary of snapshot #\(snapshotSeq) cannot be read")
        } else if let summary = summary ?? nil, summary != ListSummary(replayed) {
            problems.append(
                "the summary of snapshot #\(snapshotSeq) differs from the replay of the log")
        }
        return digestAtSnapshot
    }

    /// Checks the file of every finished task of `list` (in id order), except, with `host`, those another host
    /// downloaded (counted as `elsewhere`).
    private static func checkFiles(of list: DownloadList, checksums: Bool, host: String?) -> (
        checked: Int, elsewhere: Int, problems: [String]
    ) {
        var checked = 0
        var elsewhere = 0
        var problems: [String] = []
        for id in list.tasks.keys.sorted() {
            guard let t = list.tasks[id], t.state == .finished, let path = t.filePath else { continue }
            if let host, let holder = t.host, holder != host {
                elsewhere += 1
                continue
            }
            checked += 1
            problems += checkFile(t, path: path, checksum: checksums)
        }
        return (checked, elsewhere, problems)
    }

    /// The SHA-256 of the live projection's encoding, and its count of tasks; the list itself is not kept.
    private static func liveDigest(_ store: EventStore) throws -> (digest: [UInt8], tasks: Int) {
        let list = try liveProjection(store)
        return (digest(of: list), list.tasks.count)
    }

    /// The SHA-256 of a list's snapshot encoding, hashed as it is written.
    private static func digest(of list: DownloadList) -> [UInt8] {
        let stream = FileDigest.Stream()
        list.snapshotBytes { stream.update($0) }
        return stream.finish()
    }

    /// The projection as an open ledger computes it: latest snapshot plus tail.
    static func liveProjection(_ store: EventStore) throws -> DownloadList {
        var list = try startingPoint(store, atOrBefore: nil, reader: nil)
        try fold(store, into: &list, through: nil)
        return list
    }

    private static func checkFile(_ t: DownloadTask, path: String, checksum: Bool) -> [String] {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            return ["task #\(t.id): file missing: \(path)"]
        }
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
        guard size == t.bytes else {
            return ["task #\(t.id): \(path) has \(size) bytes, the log says \(t.bytes)"]
        }
        if checksum, let expected = t.sha256, let actual = try? FileDigest.sha256(path: path),
            actual != expected
        {
            return ["task #\(t.id): \(path) SHA-256 \(actual) differs from the log's \(expected)"]
        }
        return []
    }
}
