extension Ledger {
    /// The projection as of the last change that completed, without waiting for one being committed.
    ///
    /// ``list`` waits while another thread holds the ledger (a command waiting on its `fsync`, or on another
    /// process's write lock); a front end that answers many readers (the RPC server) reads this instead, so a
    /// slow write never holds up a read. It shows every change whose call has returned: a caller that changed
    /// the list and reads it afterwards sees its change.
    ///
    /// From the first call on, each change keeps a copy of the list it leaves, so the next change copies what it
    /// touches instead of mutating in place (a few microseconds per thousand tasks): only readers that need it
    /// should use it.
    public var latestList: DownloadList {
        let free = core.withLockIfAvailable { state in
            if !state.publishes {
                state.publishes = true
                published.withLock { $0 = state.list }
            }
            return state.list
        }
        if let free { return free }
        // Held by a change in progress: the list it started from is the latest completed one.
        if let list = published.withLock({ $0 }) { return list }
        return list
    }
}
