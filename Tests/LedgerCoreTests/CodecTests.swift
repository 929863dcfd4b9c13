import FuzzSupport
import Testing

@testable import LedgerCore

/// One event of every kind, with strings that need escaping.
let sampleEvents: [Event] = {
    let tricky = "a \"quoted\" \\ back\\slash\nnew\tline \u{1} é 日本 🎉👩‍👩‍👧"
    let entry = TrashEntry(
        id: 3, mode: .record, sectionTitle: tricky, section: 2, index: 7, deleted: 1_700_000_000_123)
    return [
        .ledgerCreated(directory: "/home/ü/Downloads", maxDownloads: 3),
        .ledgerCreated(directory: "/d", maxDownloads: 0, autoRemoveEmptySections: true),
        .sectionSorted(index: 2, order: [5, 3, 4]),
        .tasksRemoved(ids: [1, 2], removingSections: [0, 3]),
        .groupsAdded([
            TaskGroup(
                tasks: [NewTask(id: 1, url: "http://h/a", directory: "/d")], section: 0, index: 2,
                newSectionTitle: nil),
            TaskGroup(
                tasks: [NewTask(id: 2, url: "http://h/b", name: tricky, directory: "/d")], section: 3,
                index: 0,
                newSectionTitle: tricky),
        ]),
        .tasksErased(ids: [1, 2], modes: [.record]),
        .tasksErased(ids: [1, 2], modes: [.all, .record]),
        .trashPolicyChanged(enabled: false),
        .trashPolicyChanged(enabled: true),
        .sortChanged(.finished, descending: false),
        .tasksTrashed(
            [
                TrashEntry(
                    id: 4, mode: .all, sectionTitle: "B", section: 0, index: 0, deleted: 0,
                    state: .downloading)
            ],
            positions: [0], removingSections: []),
        .tasksAdded(
            tasks: [
                NewTask(
                    id: 1, url: "https://h/a?q=\"x\"", name: tricky,
                    sha256: String(repeating: "f", count: 64), directory: "/d"),
                NewTask(id: 2, url: "http://h/b", directory: "/d"),
            ], section: 1, index: 0, newSectionTitle: tricky),
        .tasksAdded(
            tasks: [NewTask(id: 9, url: "http://h/c", directory: "")], section: 0, index: 4,
            newSectionTitle: nil),
        .tasksRemoved(ids: [1, 2], removingSections: [3]),
        .tasksRemoved(ids: [5], removingSections: []),
        .tasksMoved(ids: [3, 1, 2], section: 2, index: 0),
        .tasksPlaced([
            Placement(id: 4, sectionTitle: tricky, section: 0, index: 1),
            Placement(id: 5, sectionTitle: "", section: 3, index: 0),
        ]),
        .sectionInserted(index: 0, title: tricky),
        .sectionRenamed(index: 2, title: "🎉"),
        .sectionMoved(from: 3, to: 0),
        .sectionRemoved(index: 1),
        .tasksDeleted(ids: [1, 2], modes: [.all]),
        .tasksDeleted(ids: [1, 2, 3], modes: [.record, .all, .file]),
        .filesDeleted(ids: [7]),
        .tasksRestored(ids: [1, 2], to: nil),
        .tasksRestored(ids: [1], to: Location(section: 2, index: nil)),
        .tasksRestored(ids: [1], to: Location(section: 0, index: 5)),
        .tasksTrashed(
            [entry, TrashEntry(id: 4, mode: .all, sectionTitle: "B", section: 0, index: 0, deleted: 0)],
            positions: [0, 3], removingSections: [2]),
        .trashPurged(ids: [1, 2, 3]),
        .tasksRedownloaded(ids: [4]),
        .taskRenamed(id: 4, name: tricky, fileName: nil),
        .taskRenamed(id: 4, name: "x.bin", fileName: "x.bin", userChosen: false),
        .tasksPaused(ids: [1]),
        .tasksResumed(ids: [1, 2]),
        .tasksStopped(ids: []),
        .statesRestored(ids: [1, 2, 3], states: [.waiting, .paused, .failed]),
        .maxDownloadsChanged(0),
        .speedLimitChanged(Int64.max),
        .connectionsChanged(0),
        .connectionsChanged(64),
        .maxSizeChanged(0),
        .maxSizeChanged(16 << 30),
        .connectionsPerServerChanged(0),
        .connectionsPerServerChanged(16),
        .minSplitSizeChanged(0),
        .minSplitSizeChanged(1 << 30),
        .settingChanged(.userAgent, .text("curl/8.5.0")),
        .settingChanged(.userAgent, .text("")),
        .pauseHoldChanged(0),
        .pauseHoldChanged(3600),
        .directoryChanged("/home/me/Downloads"),
        .taskOptionsChanged(id: 2, options: sampleOptions),
        .taskOptionsChanged(id: 2, options: TaskOptions()),
        .tasksAdded(
            tasks: [
                NewTask(
                    id: 9, url: "https://a/x", directory: "/d",
                    options: TaskOptions(headers: [
                        HeaderField(
                            name: "X-\(tricky.filter { $0.isLetter && $0.isASCII })", value: .plain(tricky))
                    ]))
            ], section: 0, index: 0, newSectionTitle: nil),
        .sortChanged(.type, descending: true),
        .emptySectionsPolicyChanged(autoRemove: true),
        .transferStarted(id: 1, attempt: 3, offset: 1 << 40),
        .transferResolved(
            id: 1, size: nil, serverName: nil, validator: nil, acceptsRanges: false, restartedFromZero: nil),
        .transferResolved(
            id: 1, size: 12_345, serverName: tricky, validator: "W/\"etag\"", acceptsRanges: true,
            restartedFromZero: "server ignored Range"),
        .transferPaused(id: 1, bytes: 0),
        .transferHeld(id: 1, bytes: 1_234),
        .transferContinued(id: 1),
        .transferCompleted(id: 1, bytes: 12_345, sha256: String(repeating: "0", count: 64), fileName: tricky),
        .transferCompleted(
            id: 1, bytes: 1, sha256: String(repeating: "0", count: 64), fileName: tricky, host: "nas-1.lan",
            directory: "/srv/ü downloads"),
        .transferClaimed(id: 1, host: "desk_2", leaseMs: 30_000),
        .transferClaimed(id: 1, host: "desk_2", leaseMs: 2_000, expired: "nas-1.lan"),
        .settingChanged(.claimLease, .number(2)),
        .hostSettingChanged(host: "nas", setting: .maxDownloads, value: 2),
        .hostSettingChanged(host: "nas", setting: .speedLimit, value: nil),
        .transferFailed(
            id: 1, failure: TaskFailure(code: "http", detail: tricky, retryable: true), bytes: -1),
        .transferRetrying(
            id: 1, failure: TaskFailure(code: "http", detail: "HTTP 503", retryable: true), bytes: 4_096,
            delayMs: 1_250),
        .transferConnections(id: 1, connections: 16, detail: "16 connections; " + tricky),
        .hookChanged(hook: .complete, command: "/home/ü/bin/after download"),
        .hookChanged(hook: .error, command: nil),
        .hookFinished(
            id: 4, hook: .complete, command: "/usr/local/bin/hook", result: .exited(3), firstLine: "é ok"),
        .hookFinished(id: 4, hook: .error, command: "/h", result: .signalled(9), firstLine: ""),
        .hookFinished(id: 4, hook: .error, command: "/h", result: .timedOut(limitMs: 60_000), firstLine: "x"),
        .hookFinished(
            id: 4, hook: .complete, command: "/h", result: .notStarted("No such file or directory"),
            firstLine: ""),
    ]
}()

private func roundTrip(_ entry: Entry) throws -> Entry {
    try Entry.decode(kind: entry.event.kind, payload: entry.encodedPayload())
}

private func decode(_ kind: String, _ json: String) throws -> Entry {
    try Entry.decode(kind: kind, payload: Array(json.utf8))
}

struct CodecTests {
    @Test func samplesCoverEveryKind() {
        #expect(Set(sampleEvents.map(\.kind)) == Set(Event.allKinds))
        #expect(Event.allKinds.count == Set(Event.allKinds).count)
    }

    @Test(arguments: sampleEvents)
    func everyEventRoundTrips(_ event: Event) throws {
        for entry in [Entry(event), Entry(event, undoes: 42), Entry(event, redoes: 7)] {
            #expect(try roundTrip(entry) == entry)
            // The payload is canonical: encoding what was decoded gives the same bytes.
            #expect(try roundTrip(entry).encodedPayload() == entry.encodedPayload())
        }
    }

    @Test func payloadsAreCompactJSON() {
        let bytes = Entry(.tasksMoved(ids: [3, 1], section: 2, index: 0), undoes: 5).encodedPayload()
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"ids":[3,1],"section":2,"index":0,"undoes":5}"#)
        let renamed = Entry(.taskRenamed(id: 1, name: "a\"b\n", fileName: nil)).encodedPayload()
        #expect(String(decoding: renamed, as: UTF8.self) == #"{"id":1,"name":"a\"b\n"}"#)
    }

    @Test func unknownKeysAndWhitespaceAreSkipped() throws {
        let json = """
             { "future" : {"a":[1,"x\\"y",null,true,{"b":-2}]}, "ids" : [ 1 , 2 ],
               "newer": "v", "section": 0, "index": 3, "extra": [] }
            """
        #expect(try decode("tasksMoved", json) == Entry(.tasksMoved(ids: [1, 2], section: 0, index: 3)))
        let task = #"{"tasks":[{"id":1,"url":"http://h/a","dir":"/d","x":{}}],"section":0,"index":0}"#
        let added = Entry(
            .tasksAdded(
                tasks: [NewTask(id: 1, url: "http://h/a", directory: "/d")], section: 0, index: 0,
                newSectionTitle: nil))
        #expect(try decode("tasksAdded", task) == added)
    }

    /// An add's tasks share one directory string when they name the same directory in a row; what each task
    /// reads is exactly what the JSON says, escapes and all, whatever the task before it named.
    @Test func directoriesRepeatedInAnAddDecodeAsWritten() throws {
        // As the JSON holds them: escapes, a backslash the task before decoded to, UTF-8 after \u escapes.
        let written = [
            "/srv/downloads/longer-than-fifteen", "/srv/downloads/longer-than-fifteen", #"/srv/a\"b"#,
            #"/srv/a\"b"#, #"/srv/a\\x"#, #"/srv/a\x"#, #"/srv/\u00e9t\u00e9"#, "/srv/été", "/srv/été", "/d",
            "/d/", "/d", "",
        ]
        let tasks = written.enumerated().map { n, dir in
            #"{"id":\#(n + 1),"url":"http://h/\#(n)","dir":"\#(dir)"}"#
        }
        let json = #"{"tasks":["# + tasks.joined(separator: ",") + #"],"section":0,"index":0}"#
        guard case .tasksAdded(let read, _, _, _) = try decode("tasksAdded", json).event else {
            Issue.record("not an add")
            return
        }
        #expect(
            read.map(\.directory) == [
                "/srv/downloads/longer-than-fifteen", "/srv/downloads/longer-than-fifteen", #"/srv/a"b"#,
                #"/srv/a"b"#, #"/srv/a\x"#, "/srv/ax", "/srv/été", "/srv/été", "/srv/été", "/d", "/d/", "/d",
                "",
            ])
        // Written and read back, tasks in one directory with others among them are the same tasks.
        let many = (1...50).map {
            NewTask(id: $0, url: "http://h/\($0)", directory: $0 % 7 == 0 ? "/x" : "/y")
        }
        let entry = Entry(.tasksAdded(tasks: many, section: 0, index: 0, newSectionTitle: nil))
        #expect(try roundTrip(entry) == entry)
    }

    @Test func escapesDecode() throws {
        let json = #"{"index":0,"title":"\u00e9\ud83c\udf89\/\b\f\r\t\"\\"}"#
        #expect(
            try decode("sectionInserted", json)
                == Entry(.sectionInserted(index: 0, title: "é🎉/\u{8}\u{C}\r\t\"\\")))
        let lone = #"{"index":0,"title":"\ud800x"}"#
        #expect(try decode("sectionInserted", lone) == Entry(.sectionInserted(index: 0, title: "\u{FFFD}x")))
    }

    @Test(arguments: [
        ("tasksExploded", #"{"ids":[1]}"#),
        ("", "{}"),
        ("tasksMoved", #"{"ids":"1","section":0,"index":0}"#),
        ("tasksMoved", #"{"ids":[1],"section":0}"#),
        ("tasksMoved", #"{"ids":[1.5],"section":0,"index":0}"#),
        ("sectionInserted", #"{"index":"0","title":"a"}"#),
        ("sectionInserted", #"{"index":0,"title":1}"#),
        ("maxDownloadsChanged", #"{"max":true}"#),
        ("maxDownloadsChanged", #"{"max":99999999999999999999}"#),
        ("maxDownloadsChanged", #"{"max":-}"#),
        ("tasksDeleted", #"{"ids":[1],"mode":"shred"}"#),
        ("tasksDeleted", #"{"ids":[1]}"#),
        ("statesRestored", #"{"ids":[1,2],"states":["paused"]}"#),
        ("statesRestored", #"{"ids":[1],"states":["asleep"]}"#),
        ("sortChanged", #"{"mode":"color"}"#),
        ("emptySectionsPolicyChanged", #"{}"#),
        ("tasksAdded", #"{"tasks":[{"id":1,"dir":"/d"}],"section":0,"index":0}"#),
        ("tasksPlaced", #"{"placements":[{"id":1,"section":0,"index":0}]}"#),
        (
            "tasksTrashed",
            #"{"entries":[{"id":1,"mode":"all","title":"A","section":0,"index":0,"deleted":1}]}"#
        ),
        ("tasksRestored", #"{"ids":[1],"to":{"index":2}}"#),
        ("transferCompleted", #"{"id":1,"bytes":5}"#),
        ("transferStarted", #"{"attempt":1}"#),
        ("tasksMoved", #"["ids"]"#),
        ("tasksMoved", #"{"ids":[1],"section":0,"index":0}trailing"#),
        ("tasksMoved", #"{"ids":[1] "section":0,"index":0}"#),
        ("tasksMoved", #"{ids:[1],"section":0,"index":0}"#),
        ("tasksMoved", ""),
        ("tasksMoved", "   "),
        ("sectionInserted", #"{"index":0,"title":"\u12"}"#),
        ("sectionInserted", #"{"index":0,"title":"abc\"#),
    ])
    func malformedPayloadsThrow(_ kind: String, _ json: String) {
        #expect(throws: PayloadError.self) { try decode(kind, json) }
    }

    @Test func everyTruncationThrows() {
        for event in sampleEvents {
            let bytes = Entry(event, undoes: 3).encodedPayload()
            for n in 0..<bytes.count {
                #expect(throws: PayloadError.self, "\(event.kind) cut at \(n)") {
                    try Entry.decode(kind: event.kind, payload: Array(bytes[..<n]))
                }
            }
        }
    }

    @Test func randomBytesNeverTrap() {
        var rng = SplitMix64(seed: 11)
        let alphabet = Array(#"{}[]",:0123456789-tfnrueals\ "idsxyz"#.utf8)
        for _ in 0..<3_000 {
            let count = Int(rng.next() % 40)
            let bytes = (0..<count).map { _ in
                rng.next() % 4 == 0
                    ? UInt8(truncatingIfNeeded: rng.next())
                    : alphabet[Int(rng.next() % UInt64(alphabet.count))]
            }
            let kind = Event.allKinds[Int(rng.next() % UInt64(Event.allKinds.count))]
            do {
                _ = try Entry.decode(kind: kind, payload: bytes)
            } catch {
                #expect(error is PayloadError)
            }
        }
    }

    @Test func claimsWithABadHostOrLeaseAreRefused() {
        for bad in [
            #"{"id":1,"host":"a b","leaseMs":1000}"#, #"{"id":1,"host":"","leaseMs":1000}"#,
            #"{"id":1,"host":"a","leaseMs":0}"#, #"{"id":1,"leaseMs":1000}"#,
            #"{"id":1,"host":"a","leaseMs":1000,"expired":"x/y"}"#,
        ] {
            #expect(throws: PayloadError.self, "\(bad)") { try decode("transferClaimed", bad) }
        }
        #expect(throws: PayloadError.self) {
            try decode("transferCompleted", #"{"id":1,"file":"a","dir":"relative"}"#)
        }
    }

    @Test func errorsSayWhere() {
        let error = #expect(throws: PayloadError.self) { try decode("tasksMoved", #"{"ids":[x]}"#) }
        #expect(error?.description == "bad event payload at byte 8: expected an integer")
    }
}
