import DownloadLedger

extension Aria2Service {
    /// DownloadLedger's own methods, under `dledger.`, for what aria2 has no words for.
    static let ledgerMethods: [String: Handler] = [
        "dledger.undo": { s, _ in try s.undoRedo(.undo) },
        "dledger.redo": { s, _ in try s.undoRedo(.redo) },
    ]

    func undoRedo(_ command: Command) throws -> RPCValue {
        let outcome = try execute(command)
        return .object([
            ("seq", .number(outcome.seq)),
            ("target", outcome.decision.target.map { .number($0.seq) } ?? .null),
            ("kind", outcome.decision.target.map { .string($0.kind) } ?? .null),
        ])
    }
}
