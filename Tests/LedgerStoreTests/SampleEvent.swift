import LedgerStore

/// A small event whose payload names the task, like LedgerCore's compact JSON.
func sampleEvent(_ task: Int64, kind: String = "tasksAdded", tasks: [Int64]? = nil) -> NewEvent {
    NewEvent(
        kind: kind, version: 1, tasks: tasks ?? [task],
        payload: Array(#"{"id":\#(task),"url":"https://example.com/f\#(task).bin"}"#.utf8))
}
