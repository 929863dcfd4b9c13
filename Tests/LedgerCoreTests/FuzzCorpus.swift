import FuzzSupport

@testable import LedgerCore

/// Valid encodings for the decoder fuzz tests to damage: the event payloads and snapshots of a random command mix
/// (every event kind, undo and redo steps, sections, trash), adds of every shape with options and sealed
/// credentials, and lists whose ids have gaps or lie far apart (the snapshot's other task readers).
enum FuzzCorpus {
    /// A credential as the vault logs it.
    static let sealed = SealedSecret(
        keyTask: 3, nonce: Array(0..<12), box: Array(repeating: 0xA5, count: 24)
    ).text

    static let options: TaskOptions = {
        var o = sampleOptions
        o.headers.append(HeaderField(name: "Authorization", value: .sealed(SealedValue(ciphertext: sealed))))
        o.userinfo = .sealed(SealedValue(ciphertext: sealed))
        o.maxSize = 1 << 30
        return o
    }()

    /// The command mix's log and some of its lists along the way.
    private static let mix: (entries: [LoggedEntry], lists: [DownloadList]) = {
        var fuzz = Fuzzer(seed: 0xF0_22ED)
        var lists: [DownloadList] = []
        for n in 0..<400 {
            fuzz.step(n)
            if n % 40 == 39 { lists.append(fuzz.list) }
        }
        return (fuzz.log.entries, lists)
    }()

    /// Lists the command mix does not make: tasks with options, digests and failures; ids with gaps; an id far
    /// past the others.
    private static let shaped: [DownloadList] = {
        var log = TestLog()
        let tasks: [NewTask] = (1...6).map { (id: Int) -> NewTask in
            let sha: String? = id == 3 ? String(repeating: "ab", count: 32) : id == 4 ? "not hex" : nil
            let name: String? = id == 2 ? "a \"b\" ☃" : nil
            let dir = id % 2 == 0 ? "/d/x" : "/d"
            return NewTask(
                id: TaskID(id), url: "https://h.example/é/\(id).iso", name: name, sha256: sha, directory: dir,
                options: id % 3 == 0 ? TaskOptions() : options)
        }
        log.append(Entry(.tasksAdded(tasks: tasks, section: 0, index: 0, newSectionTitle: "Downloads")))
        log.append(Entry(.transferStarted(id: 1, attempt: 1, offset: 0)))
        log.append(
            Entry(
                .transferResolved(
                    id: 1, size: 5000, serverName: "s", validator: "\"v\"", acceptsRanges: true,
                    restartedFromZero: nil)))
        log.append(
            Entry(
                .transferCompleted(
                    id: 1, bytes: 5000, sha256: String(repeating: "c", count: 64),
                    fileName: "1.iso")))
        log.append(
            Entry(
                .transferFailed(
                    id: 2, failure: TaskFailure(code: "http", detail: "HTTP 404", retryable: false), bytes: 7)
            ))
        var lists = [log.list]
        // Gaps: ids 1, 5, 4100 (the snapshot's position index), then one far past them (the table's far ids).
        for id in [5, 4100, 20_000] as [TaskID] {
            let task = NewTask(id: id, url: "https://far.example/\(id)", directory: "/d", options: options)
            log.append(Entry(.tasksAdded(tasks: [task], section: 0, index: 0, newSectionTitle: nil)))
            lists.append(log.list)
        }
        return lists
    }()

    static var lists: [DownloadList] { mix.lists + shaped }

    static let snapshots: [[UInt8]] = lists.map { $0.snapshotBytes() }

    /// Every payload of the command mix, and adds of every shape.
    static let payloads: [(kind: String, payload: [UInt8])] = {
        var entries = mix.entries.map(\.entry)
        entries += AddOutlineTests.adds.map { Entry($0) }
        let withOptions = (1...5).map { id in
            NewTask(
                id: TaskID(id), url: "https://h.example/\(id)", name: id == 1 ? "n\u{1}\u{7F}é" : nil,
                directory: "/d", options: options)
        }
        entries.append(Entry(.tasksAdded(tasks: withOptions, section: 1, index: 2, newSectionTitle: "A\"\\")))
        entries.append(
            Entry(
                .groupsAdded([
                    TaskGroup(tasks: Array(withOptions[0..<2]), section: 0, index: 0, newSectionTitle: nil),
                    TaskGroup(tasks: Array(withOptions[2...]), section: 0, index: 0, newSectionTitle: "B"),
                ])))
        // Each payload once (the mix repeats many).
        var seen = Set<[UInt8]>()
        return entries.compactMap { e in
            let payload = e.encodedPayload()
            return seen.insert(Array(e.event.kind.utf8) + [0] + payload).inserted
                ? (e.event.kind, payload) : nil
        }
    }()
}
