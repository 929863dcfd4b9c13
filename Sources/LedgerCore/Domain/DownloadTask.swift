/// A task's identity: assigned by the ledger, stable for the task's whole life, never reused.
public typealias TaskID = Int64

/// Where a task is in its life. The to-delete list is not a state: a task in it keeps its state.
public enum TaskState: String, Sendable, CaseIterable, Comparable {
    case waiting, downloading, paused, stopped, finished, failed

    public static func < (a: TaskState, b: TaskState) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Waiting tasks, and tasks a crashed downloader left marked as downloading, are what a downloader starts.
    public var isRunnable: Bool { self == .waiting || self == .downloading }
}

/// Why a transfer failed, as the downloader reported it.
public struct TaskFailure: Sendable, Equatable {
    /// A stable short code such as `http`, `timeout`, `checksumMismatch`, `diskFull`.
    public var code: String
    /// Human detail, e.g. `HTTP 404`.
    public var detail: String
    public var retryable: Bool

    public init(code: String, detail: String, retryable: Bool) {
        self.code = code
        self.detail = detail
        self.retryable = retryable
    }
}

/// One download in the list, as the log projects it.
public struct DownloadTask: Sendable, Equatable {
    // Stored fields in an order that packs them (eight-byte ones first, the one-byte ones last), and optional
    // numbers and the rare failure kept compactly: a large list holds one of these per task, and opening a ledger
    // builds them all.
    public var id: TaskID
    public var url: String
    /// The name the user gave, if any; else the best name known so far.
    public var displayName: String
    /// The file name on disk, known once the transfer completed.
    public var fileName: String?
    /// Absolute download directory.
    public var directory: String
    /// Expected SHA-256 (lowercase hex) given when the task was added.
    public var expectedSHA256: String?
    /// ETag or Last-Modified of the partial file, for If-Range on resume.
    public var validator: String?
    public var bytes: Int64
    public var attempts: Int
    /// Milliseconds since the Unix epoch.
    public var added: Int64
    /// How many times the task's data was discarded (redownload, file deleted): a running transfer that sees
    /// this change must restart from zero.
    public var resets: Int = 0
    private var sizeValue: Int64 = .min
    private var finishedValue: Int64 = .min
    private var failureBox: FailureBox?
    private var optionsBox: OptionsBox?
    /// Which host holds or last held the task, out of line: only tasks of a shared ledger have one.
    private var claimBox: ClaimBox?
    /// The SHA-256 of the completed file kept as 32 bytes (no text to allocate for each of a large list's tasks).
    var checksum: Checksum?
    public var state: TaskState
    /// True when the user chose the name (add --name or rename): the downloader must use it for the file.
    public var nameIsUserChosen: Bool
    /// True while a pause holds the transfer's connection (``Event/transferHeld(id:bytes:)``): a resume goes on
    /// with the same response instead of a Range request.
    public var connectionKept = false

    public var size: Int64? {
        get { sizeValue == .min ? nil : sizeValue }
        set { sizeValue = newValue ?? .min }
    }

    /// Milliseconds since the Unix epoch.
    public var finished: Int64? {
        get { finishedValue == .min ? nil : finishedValue }
        set { finishedValue = newValue ?? .min }
    }

    /// Why the last attempt failed; kept through a resume until the next attempt starts.
    public var failure: TaskFailure? {
        get { failureBox?.value }
        set { failureBox = newValue.map(FailureBox.init) }
    }

    /// How the task asks for its file (headers, proxy, its speed limit, connections, mirrors); empty for most.
    public var options: TaskOptions {
        get { optionsBox?.value ?? TaskOptions() }
        set { optionsBox = newValue.isEmpty ? nil : OptionsBox(newValue) }
    }

    /// On a shared ledger, the host that claimed the task last (``Event/transferClaimed(id:host:leaseMs:expired:)``)
    /// or completed it: where its partial or finished file is. Nil for a task no host claimed (any SQLite ledger's).
    public var host: String? {
        get { claimBox?.host }
        set { claimBox = newValue.map { ClaimBox(host: $0, leaseUntil: claimBox?.leaseUntil) } }
    }

    /// When the claim of ``host`` runs out (ms since the Unix epoch, the claim's time plus its lease); nil once an
    /// outcome released it.
    public var leaseUntil: Int64? {
        get { claimBox?.leaseUntil }
        set {
            guard let box = claimBox else { return }
            claimBox = ClaimBox(host: box.host, leaseUntil: newValue)
        }
    }

    /// The host whose claim on the task is alive at `now` (ms since the Unix epoch), if any.
    public func liveHolder(at now: Int64) -> String? {
        guard let box = claimBox, let until = box.leaseUntil, until > now else { return nil }
        return box.host
    }

    /// Whether the task has any option set (no copy of the options).
    public var hasOptions: Bool { optionsBox != nil }

    /// SHA-256 of the completed file, as the downloader computed it (lowercase hex).
    public var sha256: String? {
        get { checksum?.text }
        set { checksum = newValue.map(Checksum.init) }
    }

    public init(
        id: TaskID, url: String, displayName: String, nameIsUserChosen: Bool, directory: String,
        expectedSHA256: String?, added: Int64
    ) {
        self.id = id
        self.url = url
        self.displayName = displayName
        self.nameIsUserChosen = nameIsUserChosen
        self.fileName = nil
        self.directory = directory
        self.expectedSHA256 = expectedSHA256
        self.state = .waiting
        self.bytes = 0
        self.attempts = 0
        self.added = added
        self.validator = nil
    }

    /// Every field at once (the snapshot reader).
    init(
        id: TaskID, url: String, displayName: String, nameIsUserChosen: Bool, fileName: String?,
        directory: String,
        expectedSHA256: String?, state: TaskState, bytes: Int64, size: Int64?, failure: TaskFailure?,
        attempts: Int,
        added: Int64, finished: Int64?, validator: String?, checksum: Checksum?, resets: Int,
        connectionKept: Bool = false, options: TaskOptions? = nil, host: String? = nil,
        leaseUntil: Int64? = nil
    ) {
        self.id = id
        self.url = url
        self.displayName = displayName
        self.nameIsUserChosen = nameIsUserChosen
        self.fileName = fileName
        self.directory = directory
        self.expectedSHA256 = expectedSHA256
        self.state = state
        self.bytes = bytes
        self.attempts = attempts
        self.added = added
        self.validator = validator
        self.checksum = checksum
        self.resets = resets
        self.connectionKept = connectionKept
        self.sizeValue = size ?? .min
        self.finishedValue = finished ?? .min
        self.failureBox = failure.map(FailureBox.init)
        // No options (most tasks): nothing built or compared.
        self.optionsBox = options.flatMap { $0.isEmpty ? nil : OptionsBox($0) }
        self.claimBox = host.map { ClaimBox(host: $0, leaseUntil: leaseUntil) }
    }

    /// A task of which only the id, state, bytes and size are known (a list read for one task's sake keeps the
    /// others so, and a list read to count a tail keeps every task so; see
    /// ``DownloadList/init(snapshot:reader:keepingOnly:statesOf:)``).
    static func placeholder(id: TaskID, state: TaskState, bytes: Int64, size: Int64? = nil) -> DownloadTask {
        DownloadTask(
            id: id, url: "", displayName: "", nameIsUserChosen: false, fileName: nil, directory: "",
            expectedSHA256: nil, state: state, bytes: bytes, size: size, failure: nil, attempts: 0, added: 0,
            finished: nil, validator: nil, checksum: nil, resets: 0)
    }

    /// Waiting, and no transfer has left anything: no bytes, no attempt, no file, no validator.
    public var isUntouched: Bool {
        state == .waiting && bytes == 0 && attempts == 0 && fileName == nil && validator == nil
            && failureBox == nil
    }

    /// Forget everything a transfer learned: back to waiting, from zero.
    mutating func resetTransfer() {
        resets += 1
        state = .waiting
        bytes = 0
        failure = nil
        attempts = 0
        finished = nil
        fileName = nil
        validator = nil
        checksum = nil
        connectionKept = false
    }
}

/// A SHA-256 as a task keeps it: its 32 bytes when it is 64 lowercase hex digits (what the downloader computes),
/// else the text as logged (a foreign log), so that reading it back always gives the same text.
enum Checksum: Sendable, Equatable {
    case digest(UInt64, UInt64, UInt64, UInt64)
    case text(String)

    init(_ text: String) {
        var text = text
        self = text.withUTF8 { Checksum(hex: $0) } ?? .text(text)
    }

    /// The digest of 64 lowercase hex digits, else nil.
    init?(hex utf8: UnsafeBufferPointer<UInt8>) {
        guard utf8.count == 64 else { return nil }
        func word(_ at: Int) -> UInt64? {
            var w: UInt64 = 0
            for i in at..<at + 16 {
                let c = utf8[i]
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): w = w << 4 | UInt64(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): w = w << 4 | UInt64(c - UInt8(ascii: "a") + 10)
                default: return nil
                }
            }
            return w
        }
        guard let a = word(0), let b = word(16), let c = word(32), let d = word(48) else { return nil }
        self = .digest(a, b, c, d)
    }

    /// From 32 bytes, most significant first.
    init(bytes b: UnsafeRawBufferPointer) {
        precondition(b.count >= 32)
        func word(_ at: Int) -> UInt64 {
            UInt64(bigEndian: b.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        }
        self = .digest(word(0), word(8), word(16), word(24))
    }

    var text: String {
        switch self {
        case .text(let s): return s
        case .digest(let a, let b, let c, let d):
            return String(unsafeUninitializedCapacity: 64) { out in
                func put(_ w: UInt64, at: Int) {
                    for i in 0..<16 {
                        let v = UInt8((w >> UInt64(60 - 4 * i)) & 0xF)
                        out[at + i] = v < 10 ? 0x30 + v : 0x57 + v
                    }
                }
                put(a, at: 0)
                put(b, at: 16)
                put(c, at: 32)
                put(d, at: 48)
                return 64
            }
        }
    }

    var isDigest: Bool {
        if case .digest = self { return true }
        return false
    }

    /// Appends the 32 bytes of a digest, most significant first (nothing for text).
    func appendBytes(to out: inout [UInt8]) {
        guard case .digest(let a, let b, let c, let d) = self else { return }
        func put(_ w: UInt64) {
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: w >> UInt64(shift)))
            }
        }
        put(a)
        put(b)
        put(c)
        put(d)
    }
}

/// Options out of line, like the failure: most tasks have none (a new task in an add event keeps them so too).
final class OptionsBox: Sendable, Equatable {
    let value: TaskOptions
    init(_ value: TaskOptions) { self.value = value }
    static func == (a: OptionsBox, b: OptionsBox) -> Bool { a === b || a.value == b.value }
}

/// A task's host and lease out of line: only a shared ledger's tasks have them.
private final class ClaimBox: Sendable, Equatable {
    let host: String
    let leaseUntil: Int64?
    init(host: String, leaseUntil: Int64?) {
        self.host = host
        self.leaseUntil = leaseUntil
    }
    static func == (a: ClaimBox, b: ClaimBox) -> Bool { a.host == b.host && a.leaseUntil == b.leaseUntil }
}

/// A failure out of line: most tasks have none, so it costs them one reference.
private final class FailureBox: Sendable, Equatable {
    let value: TaskFailure
    init(_ value: TaskFailure) { self.value = value }
    static func == (a: FailureBox, b: FailureBox) -> Bool { a.value == b.value }
}
