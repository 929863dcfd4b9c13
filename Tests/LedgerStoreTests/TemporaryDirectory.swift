import Foundation
import LedgerStore

/// A fresh directory under the system temp dir, removed with everything in it when released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "ledgerstore-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The path of `name` inside the directory.
    func file(_ name: String) -> String { path + "/" + name }
}

/// A small event whose payload names the task, like LedgerCore's compact JSON.
func sampleEvent(_ task: Int64, kind: String = "tasksAdded", tasks: [Int64]? = nil) -> NewEvent {
    NewEvent(
        kind: kind, version: 1, tasks: tasks ?? [task],
        payload: Array(#"{"id":\#(task),"url":"https://example.com/f\#(task).bin"}"#.utf8))
}
