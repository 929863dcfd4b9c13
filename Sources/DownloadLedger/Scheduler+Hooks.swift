extension Scheduler {
    /// Starts the hook that follows `fact`, just recorded, if it is an outcome and a hook is set for it: the run's
    /// (``hooks``) or else the ledger's. Once per outcome: a fact is recorded once.
    func startHook(after fact: Event) {
        let (hook, id): (Hook, TaskID)
        switch fact {
        case .transferCompleted(let task, _, _, _, _, _, _): (hook, id) = (.complete, task)
        case .transferFailed(let task, _, _): (hook, id) = (.error, task)
        default: return
        }
        let list = ledger.list
        guard let command = hooks.overrides[hook] ?? list.hooks[hook], let t = list.tasks[id] else { return }
        // The path the file has, or would have had: never a URL.
        let path = t.directory + "/" + (t.fileName ?? t.displayName)
        hookRunner.start(hook, command: command, id: id, path: path, settings: hooks)
    }
}
