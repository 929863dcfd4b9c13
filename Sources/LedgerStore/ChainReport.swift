/// The outcome of `EventStore.verifyChain()`.
public struct ChainReport: Sendable, Equatable, CustomStringConvertible {
    /// Why a row breaks the chain.
    public enum Reason: Sendable, Equatable, CustomStringConvertible {
        /// The row's seq is not the one that should follow (a row was removed, or one was slipped in).
        case gap(expected: Int64)
        /// The row's stored hash is not SHA-256(previous hash ‖ canonical bytes): the row or its hash was edited.
        case hashMismatch
        /// The row cannot be read as an event (NULL or wrongly typed column, hash not 32 bytes).
        case badRow(String)

        public var description: String {
            switch self {
            case .gap(let expected): "expected seq \(expected)"
            case .hashMismatch: "hash does not match the row and its predecessor"
            case .badRow(let detail): "unreadable row: \(detail)"
            }
        }
    }

    /// The first row that breaks the chain and why.
    public struct Problem: Sendable, Equatable {
        public var seq: Int64
        public var reason: Reason
        public init(seq: Int64, reason: Reason) {
            self.seq = seq
            self.reason = reason
        }
    }

    /// How many rows the events table holds.
    public var rowCount: Int64
    /// The largest seq in the table (0 when empty).
    public var head: Int64
    /// The hash of the head row: note it to detect later removal of the last rows, which no chain can show.
    public var headHash: [UInt8]
    /// The first break in the chain, nil when every row checks out.
    public var firstProblem: Problem?

    /// Whether every row checks out.
    public var isValid: Bool { firstProblem == nil }

    public init(rowCount: Int64, head: Int64, headHash: [UInt8], firstProblem: Problem?) {
        self.rowCount = rowCount
        self.head = head
        self.headHash = headHash
        self.firstProblem = firstProblem
    }

    public var description: String {
        guard let problem = firstProblem else { return "chain valid: \(rowCount) events, head \(head)" }
        return "chain broken at seq \(problem.seq): \(problem.reason) (\(rowCount) rows, head \(head))"
    }
}
