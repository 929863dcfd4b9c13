import DownloadLedger
import Foundation
import LedgerRPC
import Testing

/// `addUri`'s request options and mirrors, `getOption` and `changeOption` for a task: events, redaction, refusals.
@Suite struct Aria2OptionsTests {
    @Test func addUriKeepsTheRequestOptionsAndTheOtherURIsAsMirrors() throws {
        let h = try RPCHarness(listen: false)
        let url = h.file("a.bin")
        let mirror = h.files.url("/mirror/a.bin")
        let gid = try #require(
            try h.result(
                "aria2.addUri",
                #"[["\#(url)","\#(mirror)","\#(url)"],{"header":["X-A: 1","Cookie: sid=s3cret"],"user-agent":"AriaNg","referer":"*","all-proxy":"http://127.0.0.1:3128","max-download-limit":"100K","split":"4","max-connection-per-server":"4"}]"#
            ) as? String)
        let id = try #require(GID.id(of: gid))
        let o = try #require(h.ledger.list.tasks[id]?.options)
        #expect(o.headers.map(\.name) == ["X-A", "Cookie"])
        #expect(o.headers.last?.value.plainText == nil)  // sealed by the ledger
        #expect(o.userAgent == "AriaNg" && o.referer == "*" && o.proxy == "http://127.0.0.1:3128")
        #expect(o.maxSpeed == 102_400 && o.connections == 4 && o.mirrors == [mirror])
        #expect(o.connectionsPerServer == 4 && o.minSplitSize == nil)

        let options = try #require(try h.result("aria2.getOption", #"["\#(gid)"]"#) as? [String: String])
        #expect(options["header"] == "X-A: 1\nCookie: [redacted]\n")
        #expect(options["max-download-limit"] == "102400" && options["split"] == "4")
        #expect(options["max-connection-per-server"] == "4" && options["min-split-size"] == nil)
        #expect(options["user-agent"] == "AriaNg" && options["all-proxy"] == "http://127.0.0.1:3128/")
        let uris = try #require(try h.result("aria2.getUris", #"["\#(gid)"]"#) as? [[String: String]])
        #expect(uris.map { $0["uri"] } == [url, mirror])
        let log = try h.ledger.log().map { String(decoding: $0.entry.encodedPayload(), as: UTF8.self) }
            .joined()
        #expect(!log.contains("s3cret"))
    }

    @Test func changeOptionIsOneEventAndGetOptionShowsIt() throws {
        let h = try RPCHarness(listen: false)
        let gid = try #require(try h.result("aria2.addUri", #"[["\#(h.file("a.bin"))"]]"#) as? String)
        let id = try #require(GID.id(of: gid))
        let before = try h.eventCount()
        #expect(
            try h.result("aria2.changeOption", #"["\#(gid)",{"max-download-limit":"1M","user-agent":"x/1"}]"#)
                as? String == "OK")
        #expect(try h.eventCount() == before + 1)
        let last = try #require(try h.ledger.log().last)
        #expect(last.entry.origin == "rpc")
        guard case .taskOptionsChanged(id, let o) = last.entry.event else {
            Issue.record("not an options change: \(last.entry.event)")
            return
        }
        #expect(o.maxSpeed == 1 << 20 && o.userAgent == "x/1")
        let options = try #require(try h.result("aria2.getOption", #"["\#(gid)"]"#) as? [String: String])
        #expect(options["max-download-limit"] == "1048576" && options["user-agent"] == "x/1")
        // The same again changes nothing; an option the task does not keep is "OK" and ignored.
        #expect(
            try h.result("aria2.changeOption", #"["\#(gid)",{"max-download-limit":"1M"}]"#) as? String == "OK"
        )
        #expect(try h.result("aria2.changeOption", #"["\#(gid)",{"seed-time":"0"}]"#) as? String == "OK")
        #expect(try h.eventCount() == before + 1)
        // 0 removes the task's own limit.
        _ = try h.result("aria2.changeOption", #"["\#(gid)",{"max-download-limit":"0"}]"#)
        #expect(h.ledger.list.tasks[id]?.options.maxSpeed == nil)
    }

    /// aria2's `-x` and `-k` per task: `min-split-size` in aria2's units (`M` is MiB), read back as bytes.
    @Test func changeOptionSetsConnectionsPerServerAndMinSplitSize() throws {
        let h = try RPCHarness(listen: false)
        let gid = try #require(
            try h.result("aria2.addUri", #"[["\#(h.file("a.bin"))"],{"min-split-size":"20M"}]"#) as? String)
        let id = try #require(GID.id(of: gid))
        #expect(h.ledger.list.tasks[id]?.options.minSplitSize == 20 << 20)
        #expect(
            try h.result(
                "aria2.changeOption", #"["\#(gid)",{"max-connection-per-server":"2","min-split-size":"1M"}]"#)
                as? String == "OK")
        let o = try #require(h.ledger.list.tasks[id]?.options)
        #expect(o.connectionsPerServer == 2 && o.minSplitSize == 1 << 20)
        let options = try #require(try h.result("aria2.getOption", #"["\#(gid)"]"#) as? [String: String])
        #expect(options["max-connection-per-server"] == "2" && options["min-split-size"] == "1048576")
    }

    @Test func badOptionsAreRefusedAndAppendNothing() throws {
        let h = try RPCHarness(listen: false)
        let url = h.file("a.bin")
        let gid = try #require(try h.result("aria2.addUri", #"[["\#(url)"]]"#) as? String)
        let before = try h.eventCount()
        for options in [
            #"{"header":"X-A: 1\r\nHost: evil"}"#, #"{"header":"no colon"}"#, #"{"split":"65"}"#,
            #"{"split":"x"}"#, #"{"max-download-limit":"-1"}"#, #"{"max-connection-per-server":"0"}"#,
            #"{"max-connection-per-server":"17"}"#, #"{"min-split-size":"1023K"}"#,
            #"{"min-split-size":"1025M"}"#, #"{"min-split-size":"x"}"#,
            #"{"max-download-limit":"99999999999999999999"}"#,
            #"{"all-proxy":"ftp://127.0.0.1:21"}"#, #"{"user-agent":"a\u0000b"}"#, #"{"referer":"nope"}"#,
        ] {
            #expect(h.errorCode("aria2.addUri", #"[["\#(url)x"],\#(options)]"#) == 1, "\(options)")
            #expect(h.errorCode("aria2.changeOption", #"["\#(gid)",\#(options)]"#) == 1, "\(options)")
        }
        #expect(h.errorCode("aria2.addUri", #"[["\#(url)y","ftp://mirror/x"]]"#) == 1)
        #expect(h.errorCode("aria2.changeOption", #"["\#(gid)",{"out":"b"}]"#) == 1)
        #expect(try h.eventCount() == before)
    }

    /// changeUri edits the mirrors (the task's own URL stays first): one event per call that changes something,
    /// `[deleted, added]` as aria2 answers, and refusals (the own URL, another file index, a mirror twice, a task
    /// in the to-delete list) append nothing.
    @Test func changeUriEditsTheMirrorsAsOneEvent() throws {
        let h = try RPCHarness(listen: false)
        let url = h.file("a.bin")
        let (m1, m2, m3) = (h.files.url("/m1/a.bin"), h.files.url("/m2/a.bin"), h.files.url("/m3/a.bin"))
        let gid = try #require(try h.result("aria2.addUri", #"[["\#(url)","\#(m1)"]]"#) as? String)
        let id = try #require(GID.id(of: gid))
        let start = try h.eventCount()

        let added = try h.result("aria2.changeUri", #"["\#(gid)",1,[],["\#(m2)","\#(m3)"],1]"#) as? [Int]
        #expect(added == [0, 2])
        #expect(h.ledger.list.tasks[id]?.options.mirrors == [m2, m3, m1])
        let removed = try h.result("aria2.changeUri", #"["\#(gid)",1,["\#(m3)","\#(m3)"],[]]"#) as? [Int]
        #expect(removed == [1, 0])
        let uris = try #require(try h.result("aria2.getUris", #"["\#(gid)"]"#) as? [[String: String]])
        #expect(uris.map { $0["uri"] } == [url, m2, m1])
        #expect(try h.eventCount() == start + 2)
        guard case .taskOptionsChanged(id, _)? = try h.ledger.log().last?.entry.event else {
            Issue.record("changeUri did not log an options change")
            return
        }

        let before = try h.eventCount()
        #expect(h.errorCode("aria2.changeUri", #"["\#(gid)",1,["\#(url)"],[]]"#) == 1)
        #expect(h.errorCode("aria2.changeUri", #"["\#(gid)",2,[],["\#(m3)"]]"#) == 1)
        #expect(h.errorCode("aria2.changeUri", #"["\#(gid)",1,[],["\#(m1)"]]"#) == 1)
        #expect(h.errorCode("aria2.changeUri", #"["\#(gid)",1,[],["ftp://m/a.bin"]]"#) == 1)
        #expect(h.errorCode("aria2.changeUri", #"["\#(gid)",1]"#) == -32602)
        #expect(try h.eventCount() == before)
        #expect(h.ledger.list.tasks[id]?.options.mirrors == [m2, m1])
    }

    @Test func theGlobalSplitIsTheLedgersDefaultConnectionCount() throws {
        let h = try RPCHarness(listen: false)
        #expect(try h.result("aria2.changeGlobalOption", #"[{"split":"6"}]"#) as? String == "OK")
        #expect(h.ledger.list.connections == 6)
        let options = try #require(try h.result("aria2.getGlobalOption") as? [String: String])
        #expect(options["split"] == "6")
        #expect(h.errorCode("aria2.changeGlobalOption", #"[{"split":"0"}]"#) == 1)
    }
}

extension Aria2OptionsTests {
    /// The global `max-connection-per-server` and `min-split-size` are the ledger's defaults (one event each,
    /// undone as any setting); until set they read back the downloader's (16, 1 MiB), and a task without its own
    /// reads the ledger's in `getOption`.
    @Test func theGlobalSplitOptionsAreTheLedgersDefaults() throws {
        let h = try RPCHarness(listen: false)
        var options = try #require(try h.result("aria2.getGlobalOption") as? [String: String])
        #expect(options["max-connection-per-server"] == "16" && options["min-split-size"] == "1048576")
        let gid = try #require(try h.result("aria2.addUri", #"[["\#(h.file("g.bin"))"]]"#) as? String)
        let before = try h.eventCount()
        let change = #"[{"max-connection-per-server":"3","min-split-size":"8M"}]"#
        #expect(try h.result("aria2.changeGlobalOption", change) as? String == "OK")
        #expect(try h.eventCount() == before + 2)
        #expect(h.ledger.list.connectionsPerServer == 3 && h.ledger.list.minSplitSize == 8 << 20)
        options = try #require(try h.result("aria2.getGlobalOption") as? [String: String])
        #expect(options["max-connection-per-server"] == "3" && options["min-split-size"] == "8388608")
        let task = try #require(try h.result("aria2.getOption", #"["\#(gid)"]"#) as? [String: String])
        #expect(task["max-connection-per-server"] == "3" && task["min-split-size"] == "8388608")
        // The same values again change nothing; undo takes the last one back.
        #expect(try h.result("aria2.changeGlobalOption", change) as? String == "OK")
        #expect(try h.eventCount() == before + 2)
        try h.ledger.execute(.undo)
        #expect(h.ledger.list.minSplitSize == 0 && h.ledger.list.connectionsPerServer == 3)
    }
}

extension Aria2OptionsTests {
    /// `changeGlobalOption` is all or nothing: one valid and one invalid option change nothing and append no event;
    /// a value already set is left out of the one transaction, and what it appends says it came over RPC.
    @Test func aGlobalChangeWithOneInvalidOptionChangesNothing() throws {
        let h = try RPCHarness(listen: false)
        let before = try h.eventCount()
        let list = h.ledger.list
        for change in [
            #"[{"max-concurrent-downloads":"3","split":"0"}]"#,
            #"[{"max-concurrent-downloads":"3","max-overall-download-limit":"x"}]"#,
            #"[{"max-connection-per-server":"3","min-split-size":"2G"}]"#,
            #"[{"split":"6","dir":"/etc"}]"#,
        ] {
            #expect(h.errorCode("aria2.changeGlobalOption", change) == 1, "\(change)")
            #expect(try h.eventCount() == before, "\(change)")
        }
        #expect(h.ledger.list.maxDownloads == list.maxDownloads && h.ledger.list.connections == 0)
        #expect(h.ledger.list.connectionsPerServer == 0 && h.ledger.list.speedLimit == 0)
        let same = #"[{"max-concurrent-downloads":"\#(list.maxDownloads)","split":"6"}]"#
        #expect(try h.result("aria2.changeGlobalOption", same) as? String == "OK")
        #expect(try h.eventCount() == before + 1 && h.ledger.list.connections == 6)
        #expect(try h.ledger.log().last?.entry.origin == "rpc")
        let both = #"[{"max-concurrent-downloads":"7","max-overall-download-limit":"1M"}]"#
        #expect(try h.result("aria2.changeGlobalOption", both) as? String == "OK")
        #expect(try h.eventCount() == before + 3)
        #expect(h.ledger.list.maxDownloads == 7 && h.ledger.list.speedLimit == 1 << 20)
    }
}
