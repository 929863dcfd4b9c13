import Testing

@testable import LedgerCore

/// Every kind of option, a sealed credential among them (as the vault will log it).
let sampleOptions = TaskOptions(
    headers: [
        HeaderField(name: "X-Token-Id", value: .plain("a b\tc")),
        HeaderField(name: "Cookie", value: .sealed(SealedValue(ciphertext: "c2VhbGVk"))),
    ],
    userAgent: "Mozilla/5.0 (X11)", referer: "*", proxy: "socks5h://127.0.0.1:1080",
    proxyUserinfo: .sealed(SealedValue(ciphertext: "dXNlcg==")), maxSpeed: 250_000, connections: 4,
    connectionsPerServer: 2, minSplitSize: 4 << 20,
    mirrors: [u("mirror/a.iso"), "https://other.example/a.iso"])

struct TaskOptionsTests {
    private func roundTrip(_ entry: Entry) throws -> Entry {
        try Entry.decode(kind: entry.event.kind, payload: entry.encodedPayload())
    }

    @Test func anAddCarriesItsOptionsThroughThePayloadTheReducerAndTheSnapshot() throws {
        var log = TestLog()
        var plain = sampleOptions
        plain.headers.removeLast()
        plain.proxyUserinfo = nil
        let d = try log.must(
            .add(urls: [u("a.iso")], placement: .end, name: nil, sha256: nil, directory: nil, options: plain))
        #expect(try roundTrip(d.entry) == d.entry)
        #expect(log.list.tasks[1]?.options == plain)
        #expect(try DownloadList(snapshot: log.list.snapshotBytes()) == log.list)
        let payload = String(decoding: d.entry.encodedPayload(), as: UTF8.self)
        #expect(payload.contains(#""options":{"headers":[{"name":"X-Token-Id","value":"a b\tc"}]"#))
    }

    @Test func anAddWithoutOptionsIsLoggedAndReadAsBefore() throws {
        // A payload as every earlier version wrote it.
        let old =
            #"{"tasks":[{"id":1,"url":"https://example.org/a","dir":"/dl"}],"section":0,"index":0,"newSection":"Downloads"}"#
        let entry = try Entry.decode(kind: "tasksAdded", payload: Array(old.utf8))
        guard case .tasksAdded(let tasks, _, _, _) = entry.event else {
            Issue.record("not an add")
            return
        }
        #expect(tasks[0].options.isEmpty)
        #expect(String(decoding: entry.encodedPayload(), as: UTF8.self) == old)
    }

    /// Options logged before `connectionsPerServer` and `minSplitSize` existed read as before (neither set), and
    /// a payload holding one out of range is not one this version wrote.
    @Test func perServerAndMinSplitAreOptionalInThePayloadAndRangeChecked() throws {
        var log = TestLog()
        let d = try log.must(
            .add(
                urls: [u("a.iso")], placement: .end, name: nil, sha256: nil, directory: nil,
                options: TaskOptions(connections: 8)))
        let payload = String(decoding: d.entry.encodedPayload(), as: UTF8.self)
        #expect(payload.contains(#""options":{"connections":8}"#), "\(payload)")
        let read = try roundTrip(d.entry)
        guard case .tasksAdded(let tasks, _, _, _) = read.event else {
            Issue.record("not an add")
            return
        }
        #expect(tasks[0].options.connectionsPerServer == nil && tasks[0].options.minSplitSize == nil)
        let given = #""options":{"connections":8,"connectionsPerServer":2,"minSplitSize":4194304}"#
        let withBoth = payload.replacing(#""options":{"connections":8}"#, with: given)
        let both = try Entry.decode(kind: "tasksAdded", payload: Array(withBoth.utf8))
        guard case .tasksAdded(let read2, _, _, _) = both.event else {
            Issue.record("not an add")
            return
        }
        #expect(read2[0].options.connectionsPerServer == 2 && read2[0].options.minSplitSize == 4 << 20)
        for bad in [#""connectionsPerServer":17"#, #""connectionsPerServer":0"#, #""minSplitSize":1048575"#] {
            let text = payload.replacing(#""connections":8"#, with: #""connections":8,"# + bad)
            #expect(throws: (any Error).self) {
                try Entry.decode(kind: "tasksAdded", payload: Array(text.utf8))
            }
        }
    }

    @Test func aSealedCredentialIsLoggedSealedNeverAsAValue() throws {
        let entry = Entry(.taskOptionsChanged(id: 3, options: sampleOptions))
        #expect(try roundTrip(entry) == entry)
        let payload = String(decoding: entry.encodedPayload(), as: UTF8.self)
        #expect(payload.contains(#"{"name":"Cookie","sealed":"c2VhbGVk"}"#))
        #expect(payload.contains(#""proxyUserinfo":{"sealed":"dXNlcg=="}"#))
        #expect(!payload.contains(#""name":"Cookie","value""#))
    }

    @Test func changingOptionsIsOneEventThatUndoTakesBack() throws {
        var log = TestLog()
        log.add(u("a.iso"))
        var limited = TaskOptions()
        limited.maxSpeed = 1000
        try log.must(.setOptions(1, limited))
        #expect(log.list.tasks[1]?.options.maxSpeed == 1000)
        log.refuses(.setOptions(1, limited), with: .nothingToDo("task #1 already has these options"))
        try log.must(.undo)
        #expect(log.list.tasks[1]?.options.isEmpty == true)
        try log.must(.redo)
        #expect(log.list.tasks[1]?.options == limited)
        log.refuses(.setOptions(9, limited), with: .noSuchTask(9))
        var selfMirror = TaskOptions()
        selfMirror.mirrors = [u("a.iso")]
        log.refuses(
            .setOptions(1, selfMirror), with: .invalidValue("a mirror is the task's own URL: \(u("a.iso"))"))
    }

    @Test func theDefaultConnectionCountIsASetting() throws {
        var log = TestLog()
        try log.must(.setConnections(16))
        #expect(log.list.connections == 16)
        log.refuses(.setConnections(16), with: .nothingToDo("connections are already 16"))
        for bad in [-1, 65, Int.max] {
            #expect(log.error(of: .setConnections(bad)) != nil)
        }
        try log.must(.undo)
        #expect(log.list.connections == 0)
        let e = Entry(.connectionsChanged(16))
        #expect(try roundTrip(e) == e)
        #expect(throws: PayloadError.self) {
            try Entry.decode(kind: "connectionsChanged", payload: Array(#"{"connections":65}"#.utf8))
        }
    }

    /// Each bad option is refused with its own one-line reason, and nothing is decided.
    @Test(arguments: [
        (
            TaskOptions(headers: [HeaderField(name: "X-A", value: .plain("1\r\nHost: evil"))]),
            "control characters"
        ),
        (TaskOptions(headers: [HeaderField(name: "X-A", value: .plain("a\u{0}b"))]), "control characters"),
        (TaskOptions(headers: [HeaderField(name: "Bad Name", value: .plain("1"))]), "bad header name"),
        (TaskOptions(headers: [HeaderField(name: "", value: .plain("1"))]), "needs a name"),
        (
            TaskOptions(headers: [HeaderField(name: "Range", value: .plain("bytes=0-"))]),
            "sets 'Range' itself"
        ),
        (
            TaskOptions(headers: [HeaderField(name: "X", value: .plain(String(repeating: "v", count: 8193)))]
            ), "8192"
        ),
        (
            TaskOptions(headers: Array(repeating: HeaderField(name: "X", value: .plain("1")), count: 65)),
            "at most 64"
        ),
        (TaskOptions(userAgent: "a\nb"), "control characters"),
        (TaskOptions(userAgent: " "), "empty"),
        (TaskOptions(referer: "ftp://x/"), "bad referer"),
        (TaskOptions(referer: "ftp://user:s3cret@x/"), "bad referer"),
        (TaskOptions(referer: "http://user:s3 cret@x/"), "bad referer"),
        (TaskOptions(referer: "http://@x/"), "bad user information"),
        (refererWithLogin("http://user:s3cret@x/"), "the referer's user information is given twice"),
        (refererWithLogin("*"), "but no referer URL"),
        (refererWithLogin(nil), "but no referer URL"),
        (TaskOptions(proxy: "ftp://proxy:21"), "not supported"),
        (TaskOptions(proxy: "proxy:3128"), "not a proxy URL"),
        (TaskOptions(proxy: "http://proxy:99999"), "bad port"),
        (TaskOptions(proxy: "http://proxy:3128/path"), "no path"),
        (
            TaskOptions(proxy: "http://user:s3cret@proxy:3128", proxyUserinfo: .plain("other:s3cret")),
            "given twice"
        ),
        (TaskOptions(proxyUserinfo: .plain("user:s3cret")), "but no proxy"),
        (TaskOptions(proxy: "http://user:s3cret@proxy:3128/x"), "no path"),
        (TaskOptions(maxSpeed: -1), "0 to 10^15"),
        (TaskOptions(maxSpeed: .max), "0 to 10^15"),
        (TaskOptions(connections: 0), "1 to 64"),
        (TaskOptions(connections: 65), "1 to 64"),
        (TaskOptions(connectionsPerServer: 0), "per server must be 1 to 16"),
        (TaskOptions(connectionsPerServer: 17), "per server must be 1 to 16"),
        (TaskOptions(minSplitSize: (1 << 20) - 1), "1 MiB to 1 GiB"),
        (TaskOptions(minSplitSize: (1 << 30) + 1), "1 MiB to 1 GiB"),
        (TaskOptions(mirrors: ["file:///etc/passwd"]), "bad mirror"),
        (TaskOptions(mirrors: [u("m"), u("m")]), "given twice"),
    ])
    func badOptionsAreRefusedWithAReason(options: TaskOptions, reason: String) throws {
        var log = TestLog()
        log.add(u("a.iso"))
        let before = log.list
        for command in [
            Command.add(
                urls: [u("b")], placement: .end, name: nil, sha256: nil, directory: nil, options: options),
            .setOptions(1, options),
        ] {
            let error = log.error(of: command)
            let text = error.map { "\($0)" } ?? "accepted"
            #expect(text.contains(reason), "\(text)")
            #expect(!text.contains("s3cret"), "\(text)")
            #expect(!text.contains("\n") && !text.contains("\r"))
        }
        #expect(log.list == before)
    }

    /// The reducer never seals (it stays pure): a credential in clear passes validation as `plain`, the proxy's
    /// user information split from its URL, and the ledger seals both before the event is appended.
    @Test func credentialsInClearAreLeftForTheLedgerToSeal() throws {
        let o = try TaskOptions(
            headers: [try Validation.header("Cookie: sid=s3cret"), try Validation.header("X-A: 1")],
            proxy: "http://user:s3cret@proxy:3128"
        ).validated()
        #expect(o.proxy == "http://proxy:3128" && o.proxyUserinfo == .plain("user:s3cret"))
        #expect(o.hasPlainCredentials && o.hasCredentials)
        #expect(
            o.redactedLines.map(\.value) == ["Cookie: [redacted]", "X-A: 1", "http://[redacted]@proxy:3128"])
        var sealed = o
        sealed.headers[0].value = .sealed(SealedValue(ciphertext: "sealed:v1:1:00:00"))
        #expect(sealed.hasPlainCredentials)
        sealed.proxyUserinfo = .sealed(SealedValue(ciphertext: "sealed:v1:1:00:00"))
        #expect(!sealed.hasPlainCredentials && sealed.hasCredentials)
    }

    /// A referer's `user:password` is split off as a proxy's is (issue 26 §7): the ledger seals it, outputs show
    /// `[redacted]`, and the payload holds the URL without it.
    @Test func aReferersLoginIsSplitOffAndRedacted() throws {
        let o = try TaskOptions(referer: "https://user:s3cret@portal.example/page?q=1").validated()
        #expect(o.referer == "https://portal.example/page?q=1")
        #expect(o.refererUserinfo == .plain("user:s3cret"))
        #expect(o.hasPlainCredentials && o.hasCredentials)
        #expect(o.redactedReferer == "https://[redacted]@portal.example/page?q=1")
        #expect(o.redactedLines.map(\.value) == ["https://[redacted]@portal.example/page?q=1"])
        var sealed = o
        sealed.refererUserinfo = .sealed(SealedValue(ciphertext: "sealed:v1:1:00:00"))
        #expect(!sealed.hasPlainCredentials)
        // Validated again (a change of other options): kept as it is.
        #expect(try sealed.validated() == sealed)
        let entry = Entry(.taskOptionsChanged(id: 3, options: sealed))
        #expect(try roundTrip(entry) == entry)
        let payload = String(decoding: entry.encodedPayload(), as: UTF8.self)
        #expect(payload.contains(#""referer":"https://portal.example/page?q=1""#))
        #expect(payload.contains(#""refererUserinfo":{"sealed":"sealed:v1:1:00:00"}"#))
        // A referer without a login, and '*', have none.
        #expect(try TaskOptions(referer: "https://portal.example/").validated().refererUserinfo == nil)
        #expect(try TaskOptions(referer: "*").validated().redactedReferer == "*")
    }

    @Test func goodOptionsAreNormalised() throws {
        let o = try TaskOptions(
            headers: [try Validation.header("X-Requested-With:   XMLHttpRequest  ")], userAgent: " UA ",
            proxy: "SOCKS5H://Proxy.Example:1080/", maxSpeed: 0, connections: 64
        ).validated()
        #expect(o.headers == [HeaderField(name: "X-Requested-With", value: .plain("XMLHttpRequest"))])
        #expect(o.userAgent == "UA")
        #expect(o.proxy == "socks5h://Proxy.Example:1080")
        #expect(o.maxSpeed == nil)
        #expect(o.connections == 64)
        #expect(throws: LedgerError.self) { try Validation.header("no colon") }
    }

    @Test func mirrorsGoWithASingleURL() throws {
        var log = TestLog()
        let options = TaskOptions(mirrors: [u("m/a")])
        #expect(
            log.error(
                of: .add(
                    urls: [u("a"), u("b")], placement: .end, name: nil, sha256: nil, directory: nil,
                    options: options))
                as? LedgerError == .invalidValue("mirrors apply to a single URL"))
        try log.must(
            .add(urls: [u("a")], placement: .end, name: nil, sha256: nil, directory: nil, options: options))
        #expect(log.list.tasks[1]?.options.mirrors == [u("m/a")])
    }

    @Test func credentialsAreRedactedInEveryRendering() {
        #expect(HeaderField.isCredential(name: "AUTHORIZATION"))
        for name in [
            "X-Api-Key", "x-auth-token", "Private-Token", "X-CSRF-Token", "X-Session-Id", "X-Secret",
        ] {
            #expect(HeaderField.isCredential(name: name), "\(name)")
        }
        for name in ["Accept-Language", "X-Trace", "Keep-Alive", "Accept-Encoding", "If-None-Match", "DNT"] {
            #expect(!HeaderField.isCredential(name: name), "\(name)")
        }
        #expect(HeaderField(name: "Cookie", value: .plain("sid=1")).redacted == "Cookie: [redacted]")
        #expect(sampleOptions.redactedProxy == "socks5h://[redacted]@127.0.0.1:1080")
        let lines = sampleOptions.redactedLines.map { "\($0.key) \($0.value)" }
        #expect(lines.contains("header Cookie: [redacted]"))
        #expect(!lines.joined().contains("c2VhbGVk"))
        #expect(Validation.redactingUserinfo("http://u:p/w@h:1") == "http://[redacted]@h:1")
    }
}

/// Options whose referer login is already given apart, beside `referer`.
private func refererWithLogin(_ referer: String?) -> TaskOptions {
    var o = TaskOptions(referer: referer)
    o.refererUserinfo = .plain("other:s3cret")
    return o
}
