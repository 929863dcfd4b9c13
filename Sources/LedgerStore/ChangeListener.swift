/// Something to wait on for other connections' commits, so that a follower of a log wakes when one commits instead
/// of polling (``EventStore/changeListener()``).
///
/// ```swift
/// let listener = try makeListener()
/// var waiting = pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0)
/// if poll(&waiting, 1, 2_000) > 0, listener.drain() { /* another connection committed: read the log */ }
/// ```
///
/// Owned by the one thread that waits on it.
public protocol ChangeListener: AnyObject {
    /// The descriptor to wait on for reading (`poll`): readable when a commit may have been announced. -1 once the
    /// listener is lost (see ``isLost``).
    var descriptor: Int32 { get }

    /// Reads what arrived without blocking. Returns whether a commit was announced.
    func drain() -> Bool

    /// Whether the listener can no longer hear commits (its connection dropped): make a new one, and read the log
    /// once it is back, since commits made meanwhile were not announced to it.
    var isLost: Bool { get }
}
