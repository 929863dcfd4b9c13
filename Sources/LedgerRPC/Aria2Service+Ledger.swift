import DownloadLedger

extension Aria2Service {
    /// DownloadLedger's own methods, under `dledger.`, for what aria2 has no words for. Changing ones are the
    /// CLI's commands (one event each); numbers are strings, as in aria2's answers.
    static let ledgerMethods: [String: Handler] = [
        "dledger.sections": { s, _ in s.sections(s.ledger.latestList) },
        "dledger.insertSection": { s, p in
            let at = try p.optionalInt(1, in: 0...Int64(Int32.max)).map(Int.init)
            let outcome = try s.execute(.insertSection(title: try p.string(0), at: at))
            guard case .sectionInserted(let index, _) = outcome.entry.event else { return .string("OK") }
            return .number(Int64(index))
        },
        "dledger.renameSection": { s, p in
            try s.execute(.renameSection(try s.index(p, 0), title: try p.string(1)))
            return .string("OK")
        },
        "dledger.moveSection": { s, p in
            try s.execute(.moveSection(try s.index(p, 0), to: try s.index(p, 1)))
            return .string("OK")
        },
        "dledger.removeSection": { s, p in
            try s.execute(.removeSection(try s.index(p, 0)))
            return .string("OK")
        },
        "dledger.move": { s, p in
            let ids = try s.ids(p, 0)
            let index = try p.optionalInt(2, in: 0...Int64(Int32.max)).map(Int.init)
            try s.execute(.move(ids, to: Location(section: try s.index(p, 1), index: index)))
            return .string("OK")
        },
        "dledger.restore": { s, p in
            let ids = p[0] == nil ? nil : try s.ids(p, 0)
            let to = try p.optionalInt(1, in: 0...Int64(Int32.max)).map { section in
                Location(
                    section: Int(section), index: try p.optionalInt(2, in: 0...Int64(Int32.max)).map(Int.init)
                )
            }
            try s.execute(.restore(ids, to: to))
            return .string("OK")
        },
        "dledger.undo": { s, _ in try s.undoRedo(.undo) },
        "dledger.redo": { s, _ in try s.undoRedo(.redo) },
        "dledger.replay": { s, p in
            let seq = try p.int(0, in: 0...Int64.max)
            guard seq <= s.ledger.latestList.head else { throw RPCError.failed("no event #\(seq) yet") }
            return s.sections(try s.ledger.replay(through: seq))
        },
        "dledger.audit": { s, p in
            let (task, _) = try s.task(try p.string(0))
            return .array(try s.ledger.audit(task.id).map(Aria2Service.entry))
        },
        "dledger.log": { s, p in
            let since = try p.optionalInt(0, in: 0...Int64.max) ?? 0
            let limit = try p.optionalInt(1, in: 1...10_000) ?? 1_000
            return .array(try s.ledger.log(after: since, limit: Int(limit)).map(Aria2Service.entry))
        },
        "dledger.verify": { s, _ in
            let report = try s.ledger.verify(checkFiles: true, checksums: false)
            return .object([
                ("valid", .bool(report.isValid)), ("events", .number(report.events)),
                ("head", .number(report.head)),
                ("problems", .array(report.problems.map(RPCValue.string))),
            ])
        },
    ]

    /// A section index parameter, checked by the command against the list.
    func index(_ p: RPCParams, _ i: Int) throws -> Int { Int(try p.int(i, in: 0...Int64(Int32.max))) }

    /// GIDs (or unique prefixes) to task ids.
    func ids(_ p: RPCParams, _ i: Int) throws -> [TaskID] {
        guard let gids = try p.strings(i), !gids.isEmpty else {
            throw RPCError.invalidParams("The parameter at \(i) must be a non-empty array of GIDs.")
        }
        return try gids.map { try task($0).task.id }
    }

    /// The list's sections with their tasks, as GIDs with their aria2 status, in list order.
    func sections(_ list: DownloadList) -> RPCValue {
        .array(
            list.sections.enumerated().map { i, section in
                .object([
                    ("index", .number(Int64(i))), ("title", .string(section.title)),
                    (
                        "tasks",
                        .array(
                            section.tasks.compactMap { list.tasks[$0] }.map {
                                .object([
                                    ("gid", .string(GID.of($0.id))), ("id", .number($0.id)),
                                    ("name", .string($0.displayName)),
                                    ("status", .string(Aria2Status.status($0, trashed: false))),
                                    ("url", .string($0.url)),
                                ])
                            })
                    ),
                ])
            })
    }

    /// A logged event as the log shows it: seq, time, kind and the GIDs it names.
    static func entry(_ e: LoggedEntry) -> RPCValue {
        .object([
            ("seq", .number(e.seq)), ("time", .number(e.time)), ("kind", .string(e.entry.event.kind)),
            ("gids", .array(e.entry.event.taskIDs.map { .string(GID.of($0)) })),
            ("undoes", e.entry.undoes.map { .number($0) } ?? .null),
        ])
    }

    func undoRedo(_ command: Command) throws -> RPCValue {
        let outcome = try execute(command)
        return .object([
            ("seq", .number(outcome.seq)),
            ("target", outcome.decision.target.map { .number($0.seq) } ?? .null),
            ("kind", outcome.decision.target.map { .string($0.kind) } ?? .null),
        ])
    }
}
