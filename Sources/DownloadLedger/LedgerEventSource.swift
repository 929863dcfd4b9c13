import Synchronization

/// How the lists a ``Ledger`` hands out read back the events their undo steps hold by reference (the actions a
/// snapshot saved as their seq): through the ledger's mutex and its store, the event at a seq whose link in the hash
/// chain holds.
///
/// Only code outside the ledger reads through it (words for an undo, a caller looking at a step's action): the
/// ledger never leaves a reference for its own decisions to read, it reads them with the store it holds first
/// (``Ledger/State/readLoggedEvents(for:in:)``), so the mutex is never taken twice. Holds the ledger weakly: the
/// ledger's list holds this source.
final class LedgerEventSource: Sendable {
    private struct Weak {
        weak var ledger: Ledger?
    }

    private let ledger = Mutex(Weak())

    /// Reads through the ledger once ``attach(_:)`` named it; nil before, and once it is gone.
    var reader: LoggedEventReader {
        LoggedEventReader { [self] seq in
            guard let ledger = self.ledger.withLock({ $0.ledger }) else { return nil }
            return ledger.core.withLock { state in
                guard let event = try? state.store.linkedEvent(at: seq) else { return nil }
                return (Array(event.kind.utf8), event.payload)
            }
        }
    }

    func attach(_ ledger: Ledger) {
        self.ledger.withLock { $0.ledger = ledger }
    }
}
