extension DownloadList {
    /// Reads back, through `read`, what deciding `command` needs of the log: redo appends the action logged at the
    /// step's seq, which a list loaded from a snapshot holds by reference. Called before ``decide(_:)`` by the
    /// holder of the store, so that the decision itself reads nothing (and never waits for the store's owner).
    ///
    /// `read` returns the kind and payload of the event at a seq whose link in the hash chain holds, nil when there
    /// is none. A step already read, or held as its event, is left as it is; copies of the list share what is read.
    public func readLoggedEvents(
        for command: Command, _ read: (Int64) -> (kind: [UInt8], payload: [UInt8])?
    ) {
        guard case .redo = command, let step = redoStack.last else { return }
        step.inverseEvent.resolve(read)
    }
}
