/// What a transfer did; the Scheduler turns these into ledger events.
///
/// Every event is delivered exactly once, in order per id. A transfer ends with exactly one of
/// ``completed(id:bytes:sha256:fileName:)``, ``failed(id:reason:retryable:bytes:)`` or ``stopped(id:bytes:)``.
public enum TransferEvent: Sendable, Equatable {
    /// An attempt began (1, 2, ...); `offset` is the number of bytes already in the partial file.
    case started(id: Int64, attempt: Int, offset: Int64)
    /// The response headers arrived. `restartedFromZero` says why the partial file was discarded, if it was.
    case resolved(
        id: Int64, size: Int64?, serverName: String?, etag: String?, lastModified: String?,
        acceptsRanges: Bool,
        restartedFromZero: String?)
    /// Every byte is in; the file is being synced, verified and placed. The network is no longer used, so a
    /// scheduler may start another transfer; the terminal event follows.
    case received(id: Int64)
    /// The file is at `directory/fileName`: complete, fsynced and verified.
    case completed(id: Int64, bytes: Int64, sha256: String, fileName: String)
    /// Retries are exhausted or the fault is not retryable. The partial file is kept, except after a checksum
    /// mismatch.
    case failed(id: Int64, reason: FailureReason, retryable: Bool, bytes: Int64)
    /// The transfer stopped after ``TransferEngine/cancel(id:)``; `bytes` are safe in the partial file.
    case stopped(id: Int64, bytes: Int64)
    /// Paused with the connection kept (``TransferEngine/hold(id:)``); `bytes` have arrived so far.
    case held(id: Int64, bytes: Int64)
    /// A held transfer goes on with the same response (``TransferEngine/release(id:)``).
    case continued(id: Int64)
    /// An attempt ended with a retryable fault; the next attempt starts after `delay` seconds (its `.started`
    /// follows then). `bytes` are safe in the partial file.
    case retrying(id: Int64, reason: FailureReason, bytes: Int64, delay: Double)
    /// How the transfer fetches the file: `count` connections and why (`detail`), when that is worth a line in
    /// the log: a split into pieces, a server that keeps it on one connection (no ranges, size unknown), a
    /// connection or mirror dropped, and, before ``received(id:)`` of a segmented transfer, the summary of who
    /// served how many bytes.
    case connections(id: Int64, count: Int, detail: String)

    /// The task id the event is about.
    public var id: Int64 {
        switch self {
        case .started(let id, _, _), .resolved(let id, _, _, _, _, _, _), .completed(let id, _, _, _),
            .failed(let id, _, _, _), .stopped(let id, _), .received(let id), .retrying(let id, _, _, _),
            .held(let id, _), .continued(let id), .connections(let id, _, _):
            id
        }
    }

    /// Whether this event ends the transfer.
    public var isTerminal: Bool {
        switch self {
        case .completed, .failed, .stopped: true
        case .started, .resolved, .received, .retrying, .held, .continued, .connections: false
        }
    }
}
