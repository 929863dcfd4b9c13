import LedgerCore
import LedgerTransfer

/// A task as aria2 describes a download (`tellStatus` and friends): pure, from the list and the activity.
public enum Aria2Status {
    /// aria2's piece size for HTTP downloads; we report pieces of that size so clients can draw progress.
    static let pieceLength: Int64 = 1 << 20

    /// aria2's word for the task's state: `active`, `waiting`, `paused`, `error`, `complete`, `removed`.
    /// Stopped tasks are `paused` (unpause resumes them); tasks in the to-delete list are `removed`.
    public static func status(_ task: DownloadTask, trashed: Bool) -> String {
        if trashed { return "removed" }
        switch task.state {
        case .waiting: return "waiting"
        case .downloading: return "active"
        case .paused, .stopped: return "paused"
        case .finished: return "complete"
        case .failed: return "error"
        }
    }

    /// The failure in the words every front end uses (``FailureReason/sentence(code:detail:)``).
    static func errorMessage(_ failure: TaskFailure?) -> String? {
        failure.map { FailureReason.sentence(code: $0.code, detail: $0.detail) }
    }

    /// aria2's exit-status code for a failure (aria2c(1) "EXIT STATUS"), so clients show a familiar reason.
    public static func errorCode(_ failure: TaskFailure?) -> Int {
        guard let failure else { return 1 }
        switch failure.code {
        case "timeout": return 2
        case "http":
            switch Int(failure.detail.filter(\.isNumber)) ?? 0 {
            case 404: return 3
            case 401, 403: return 24
            default: return 22
            }
        case "connection": return 6
        case "diskFull": return 9
        case "fileSystem": return 16
        case "tooManyRedirects": return 23
        case "checksumMismatch": return 32
        case "sizeMismatch", "rangeNotSatisfiable": return 8
        case "invalidURL": return 28
        case "protocolViolation": return 22  // aria2: "HTTP response header was bad or unexpected"
        case "tls": return 1
        default: return 1
        }
    }

    /// The file's path as aria2 gives it: the placed file's; while it downloads, the final path it is meant for
    /// (as aria2 gives it from the start); empty while no name is known.
    static func path(_ task: DownloadTask) -> String {
        let name =
            task.fileName ?? (task.nameIsUserChosen || task.state == .downloading ? task.displayName : nil)
        return name.flatMap { $0.isEmpty ? nil : task.directory + "/" + $0 } ?? ""
    }

    /// Bytes downloaded: the live count while it runs, else what the ledger knows.
    static func completed(_ task: DownloadTask, _ activity: TransferActivity?) -> Int64 {
        if let activity { return activity.bytes }
        if task.state == .finished { return task.size ?? task.bytes }
        return task.bytes
    }

    static func total(_ task: DownloadTask, _ activity: TransferActivity?) -> Int64 {
        task.size ?? activity?.expected ?? 0
    }

    /// The `files` array: one file per task.
    static func files(_ task: DownloadTask, _ activity: TransferActivity?) -> RPCValue {
        let activity = task.state == .downloading ? activity : nil
        let uriStatus = task.state == .downloading || task.state == .finished ? "used" : "waiting"
        return .array([
            .object([
                ("completedLength", .number(completed(task, activity))),
                ("index", .string("1")),
                ("length", .number(total(task, activity))),
                ("path", .string(path(task))),
                ("selected", .string("true")),
                (
                    "uris",
                    .array(
                        ([task.url] + task.options.mirrors).map {
                            .object([("status", .string(uriStatus)), ("uri", .string($0))])
                        })
                ),
            ])
        ])
    }

    /// aria2's `bitfield`: one bit per piece, most significant first, in hex; a piece is set when every byte of
    /// it is downloaded (ours are downloaded in order, so the set pieces are a prefix).
    static func bitfield(pieces: Int64, completed: Int64, total: Int64) -> String {
        let done = completed >= total ? pieces : completed / pieceLength
        var bytes = [UInt8](repeating: 0, count: Int((pieces + 7) / 8))
        for i in 0..<Int(min(done, pieces)) { bytes[i / 8] |= 0x80 >> UInt8(i % 8) }
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }

    /// The status object, with only `keys` when given (unknown keys are ignored, as aria2 ignores them).
    public static func object(
        _ task: DownloadTask, trashed: Bool, activity: TransferActivity?, keys: Set<String>? = nil
    ) -> RPCValue {
        // The engine's progress can outlive the transfer by a moment: the ledger's facts win once it ended.
        let activity = task.state == .downloading && !trashed ? activity : nil
        let status = status(task, trashed: trashed)
        let total = total(task, activity)
        var fields: [(String, RPCValue)] = []
        func add(_ key: String, _ value: @autoclosure () -> RPCValue) {
            if keys?.contains(key) ?? true { fields.append((key, value())) }
        }
        let pieces = total == 0 ? 0 : (total + pieceLength - 1) / pieceLength
        if pieces > 0 {
            add(
                "bitfield",
                .string(bitfield(pieces: pieces, completed: completed(task, activity), total: total)))
        }
        add("completedLength", .number(completed(task, activity)))
        // The live count: 0 while it waits out a backoff or no downloader runs it.
        add("connections", .string(String(activity.map { $0.retry == nil ? $0.connections : 0 } ?? 0)))
        add("dir", .string(task.directory))
        // Not aria2's: on a ledger shared by several hosts, the host that has the task's file or transfer.
        if let host = task.host { add("dledgerHost", .string(host)) }
        add("downloadSpeed", .number(activity.map { $0.retry == nil ? Int64($0.speed) : 0 } ?? 0))
        if let retry = activity?.retry {
            // Still active, as aria2 keeps a download that waits to retry; the message says when and why.
            add("errorMessage", .string(retry.line(now: RetryWait.wallClock())))
        } else if status == "error" {
            add("errorCode", .string(String(errorCode(task.failure))))
            add("errorMessage", .string(errorMessage(task.failure) ?? "failed without a recorded reason"))
        } else if status == "complete" || status == "removed" {
            // aria2 reports the result of every stopped download: 0 and no message when it did not fail.
            add("errorCode", .string(task.failure.map { String(errorCode($0)) } ?? "0"))
            add("errorMessage", .string(errorMessage(task.failure) ?? ""))
        }
        add("files", files(task, activity))
        add("gid", .string(GID.of(task.id)))
        add("numPieces", .number(pieces))
        add("pieceLength", .number(pieceLength))
        add("status", .string(status))
        add("totalLength", .number(total))
        add("uploadLength", .string("0"))
        add("uploadSpeed", .string("0"))
        return .object(fields)
    }
}
