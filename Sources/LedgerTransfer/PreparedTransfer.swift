import Synchronization

/// A transfer made ready ahead of its start (``TransferEngine/prepare(_:)``): its request checked and its partial
/// file opened (created if new) on the thread that prepared it, so that ``TransferEngine/start(_:)-(PreparedTransfer)``
/// costs the engine's loop no file system work. A scheduler keeps a few of them for the next free slots and starts
/// one the moment a transfer reports ``TransferEvent/received(id:)``.
///
/// Started at most once; one never started must be ``discard()``ed (its descriptors close, and a partial file
/// that is still empty goes, as a stopped transfer's does).
public final class PreparedTransfer: Sendable {
    public let request: TransferRequest
    /// The opened partial file, until it is started or discarded.
    private let opened: Mutex<OpenedPartial?>

    init(_ request: TransferRequest) {
        self.request = request
        self.opened = Mutex(OpenedPartial(request))
    }

    /// The opened partial file, once: nil after a start or a discard.
    func take() -> OpenedPartial? {
        opened.withLock { opened in
            defer { opened = nil }
            return opened
        }
    }

    /// Closes what was opened for a transfer that will not start; an empty partial file is removed. Idempotent.
    public func discard() {
        take()?.discard(removingEmpty: true)
    }
}
