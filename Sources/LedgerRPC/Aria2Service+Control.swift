import DownloadLedger

extension Aria2Service {
    /// `addUri(uris, options, position)`: one task; the URIs after the first are its mirrors, as aria2 takes them
    /// unless they are one URI), placed at `position` among the first section's waiting tasks.
    func addUri(_ p: RPCParams) throws -> RPCValue {
        guard let uris = try p.strings(0), let first = uris.first else {
            throw RPCError.invalidParams("The parameter at 0 must be a non-empty array of URIs.")
        }
        var options = try AddOptions(try p.options(1) ?? [], defaultDir: settings.withLock { $0.dir })
        if let dir = options.dir { options.dir = try confined(dir) }
        // The other URIs are mirrors of the first (aria2 repeats a URI for more connections to it: one here).
        var seen: Set<String> = [Validation.identity(first)]
        options.request.mirrors = uris.dropFirst().filter { seen.insert(Validation.identity($0)).inserted }
        let position = try p.optionalInt(2, in: 0...Int64(Int32.max))
        let placement = position.map { self.placement(forWaitingPosition: Int($0)) } ?? .end
        let outcome = try execute(
            .add(
                urls: [first], placement: placement, name: options.out, sha256: options.sha256,
                directory: options.dir, options: options.request))
        guard let id = outcome.decision.added.first else { throw RPCError.failed("nothing added") }
        return .string(GID.of(id))
    }

    /// The index in the first section before its `position`-th waiting task (its end when there are fewer).
    func placement(forWaitingPosition position: Int) -> AddPlacement {
        let list = ledger.list
        guard let section = list.sections.first else { return .end }
        var seen = 0
        for (i, id) in section.tasks.enumerated() {
            guard let state = list.tasks.state(of: id), [.waiting, .paused, .stopped].contains(state) else {
                continue
            }
            if seen == position { return .section(0, index: i) }
            seen += 1
        }
        return .section(0, index: nil)
    }

    /// Answers `gid` after running a command on one task.
    func onTask(_ p: RPCParams, _ make: (TaskID) -> Command, refused: (String) -> String) throws -> RPCValue {
        let (task, trashed) = try task(try p.string(0))
        let gid = GID.of(task.id)
        if trashed { throw RPCError.failed(refused(gid)) }
        try execute(make(task.id), unchanged: refused(gid))
        return .string(gid)
    }

    func pause(_ p: RPCParams) throws -> RPCValue {
        try onTask(p, { .pause(.tasks([$0])) }, refused: { "GID#\($0) cannot be paused now" })
    }

    func unpause(_ p: RPCParams) throws -> RPCValue {
        try onTask(p, { .resume(.tasks([$0])) }, refused: { "GID#\($0) cannot be unpaused now" })
    }

    /// `remove`: to the to-delete list (restorable with `dledger.restore`), keeping a finished file on disk.
    func remove(_ p: RPCParams) throws -> RPCValue {
        try onTask(
            p, { .delete(.tasks([$0]), mode: .record) },
            refused: { "Active Download not found for GID#\($0)" })
    }

    /// `removeDownloadResult`: a stopped task in the list goes to the to-delete list; one already there is
    /// purged (its record is gone for good).
    func removeDownloadResult(_ p: RPCParams) throws -> RPCValue {
        let (task, trashed) = try task(try p.string(0))
        if trashed {
            try execute(.purge([task.id]))
        } else {
            guard task.state == .finished || task.state == .failed else {
                throw RPCError.failed("Could not remove download result of GID#\(GID.of(task.id))")
            }
            try execute(.delete(.tasks([task.id]), mode: .record))
        }
        return .string("OK")
    }

    /// `purgeDownloadResult`: purges the to-delete list.
    func purgeDownloadResult() throws -> RPCValue {
        guard !ledger.list.trash.isEmpty else { return .string("OK") }
        return try all(.purge(nil))
    }

    /// `changePosition(gid, pos, how)` in the task's section: a move; answers the new index.
    func changePosition(_ p: RPCParams) throws -> RPCValue {
        let (task, trashed) = try task(try p.string(0))
        let pos = try p.int(1)
        let how = try p.string(2)
        let list = ledger.list
        guard !trashed, let (section, index) = list.location(of: task.id) else {
            throw RPCError.failed("GID#\(GID.of(task.id)) not found in the waiting queue.")
        }
        let count = Int64(list.sections[section].tasks.count)
        let target: Int64
        switch how {
        case "POS_SET": target = pos
        case "POS_CUR": target = Int64(index) + pos
        case "POS_END": target = count - 1 + pos
        default: throw RPCError.invalidParams("The parameter at 2 must be POS_SET, POS_CUR or POS_END.")
        }
        let clamped = Int(min(max(target, 0), count - 1))
        if clamped != index {
            try execute(.move([task.id], to: Location(section: section, index: clamped)))
        }
        return .int(Int64(clamped))
    }
}
