import DownloadLedger
import Foundation
import LedgerRPC
import Testing

@Suite struct Aria2ServiceTests {
    @Test func gidsAreSixteenHexDigitsAndMapBack() {
        for id: TaskID in [1, 2, 3, 255, 1 << 20, 1 << 40, Int64.max] {
            let gid = GID.of(id)
            #expect(gid.count == 16 && gid.allSatisfy(\.isHexDigit))
            #expect(GID.id(of: gid) == id)
        }
        #expect(GID.of(1) != GID.of(2))
        #expect(GID.id(of: "zz") == nil)
        #expect(GID.id(of: "123") == nil)
    }

    @Test func paginationFollowsAria2() {
        // aria2: offset -1 is the last; the page is counted back from there (and returned last first).
        #expect(Aria2Service.pagination(offset: 0, num: 3, size: 5) == 0..<3)
        #expect(Aria2Service.pagination(offset: 3, num: 10, size: 5) == 3..<5)
        #expect(Aria2Service.pagination(offset: 5, num: 1, size: 5) == 0..<0)
        #expect(Aria2Service.pagination(offset: -1, num: 2, size: 5) == 3..<5)
        #expect(Aria2Service.pagination(offset: -1, num: 10, size: 5) == 0..<5)
        #expect(Aria2Service.pagination(offset: -6, num: 1, size: 5) == 0..<0)
        #expect(Aria2Service.pagination(offset: -2, num: 1, size: 5) == 3..<4)
    }

    @Test func addUriIsOneEventAndAnswersTheGID() throws {
        let h = try RPCHarness(listen: false)
        let before = try h.eventCount()
        let url = h.file("a.bin")
        let gid = try #require(try h.result("aria2.addUri", #"[["\#(url)"],{"out":"named.bin"}]"#) as? String)
        #expect(try h.eventCount() == before + 1)
        // The event says it came over RPC, and reads back so from the file.
        #expect(try h.ledger.log().last?.entry.origin == "rpc")
        #expect(try Ledger(path: h.ledgerPath, readOnly: true).log().last?.entry.origin == "rpc")
        let id = try #require(GID.id(of: gid))
        let task = try #require(h.ledger.list.tasks[id])
        #expect(task.url == url && task.displayName == "named.bin")
        let status = try #require(try h.result("aria2.tellStatus", #"["\#(gid)"]"#) as? [String: Any])
        #expect(status["gid"] as? String == gid)
        #expect(status["status"] as? String == "waiting")
        #expect(status["totalLength"] as? String == "0")
        let short = try #require(
            try h.result("aria2.tellStatus", #"["\#(gid.prefix(6))",["gid","status"]]"#) as? [String: Any])
        #expect(Set(short.keys) == ["gid", "status"])
    }

    @Test func errorMessageIsTheSentenceOtherFrontEndsShow() throws {
        let h = try RPCHarness(listen: false)
        let gid = try #require(try h.result("aria2.addUri", #"[["\#(h.file("a.bin"))"]]"#) as? String)
        let id = try #require(GID.id(of: gid))
        let failure = TaskFailure(code: "sizeMismatch", detail: "2400000:960000", retryable: true)
        _ = try h.ledger.record([
            .transferStarted(id: id, attempt: 1, offset: 0),
            .transferFailed(id: id, failure: failure, bytes: 0),
        ])
        let status = try #require(try h.result("aria2.tellStatus", #"["\#(gid)"]"#) as? [String: Any])
        #expect(status["status"] as? String == "error")
        #expect(status["errorMessage"] as? String == "connection closed after 960 KB of 2.4 MB")
        #expect(
            status["errorMessage"] as? String
                == FailureReason.sentence(code: failure.code, detail: failure.detail))
    }

    @Test func refusedCallsAppendNothing() throws {
        let h = try RPCHarness(listen: false)
        let url = h.file("a.bin")
        _ = try h.result("aria2.addUri", #"[["\#(url)"]]"#)
        let before = try h.eventCount()
        #expect(h.errorCode("aria2.addUri", #"[["\#(url)"]]"#) == 1)  // the same URL again
        #expect(h.errorCode("aria2.addUri", #"[["ftp://x/y"]]"#) == 1)
        #expect(h.errorCode("aria2.addUri", #"[["\#(url)x"],{"checksum":"md5=abc"}]"#) == 1)
        #expect(h.errorCode("aria2.addUri", #"[["\#(url)x"],{"dir":"relative"}]"#) == 1)
        #expect(h.errorCode("aria2.addUri", #"["notalist"]"#) == -32602)
        #expect(h.errorCode("aria2.addUri", #"[["\#(url)x"],{},-1]"#) == -32602)
        #expect(h.errorCode("aria2.tellWaiting", #"["a",1]"#) == -32602)
        #expect(h.errorCode("aria2.tellWaiting", #"[0,99999999999]"#) == -32602)
        #expect(h.errorCode("aria2.tellStatus", #"["zz"]"#) == 1)
        #expect(h.errorCode("aria2.tellStatus", #"["0000000000000001"]"#) == 1)
        #expect(h.errorCode("aria2.nope") == -32601)
        #expect(h.errorCode("aria2.addTorrent", #"["AAAA"]"#) == 1)
        #expect(h.errorCode("aria2.addMetalink", #"["AAAA"]"#) == 1)
        let bad = h.service.reply(to: Array("{bad".utf8))
        #expect(bad.isError && String(decoding: bad.bytes, as: UTF8.self).contains("-32700"))
        #expect(try h.eventCount() == before)
    }

    /// A `dir` with `.` or `..` in it is taken as the CLI takes `--dir`, resolved; not recorded as typed (the
    /// downloader refuses such a path, so the task would fail later).
    @Test func aDirWithDotsIsResolved() throws {
        let h = try RPCHarness(listen: false)
        let gid = try #require(
            try h.result("aria2.addUri", #"[["\#(h.file("a.bin"))"],{"dir":"\#(h.downloads)/./x/../dl/"}]"#)
                as? String)
        let status = try #require(try h.result("aria2.tellStatus", #"["\#(gid)",["dir"]]"#) as? [String: Any])
        #expect(status["dir"] as? String == h.downloads + "/dl")
        _ = try h.result("aria2.changeGlobalOption", #"[{"dir":"\#(h.downloads)/a/b/../../c"}]"#)
        let global = try #require(try h.result("aria2.getGlobalOption") as? [String: Any])
        #expect(global["dir"] as? String == h.downloads + "/c")
    }

    @Test func theSecretGuardsEveryCallButTheLists() throws {
        let h = try RPCHarness(secret: "s3cret", listen: false)
        let url = h.file("a.bin")
        let before = try h.eventCount()
        #expect(h.errorCode("aria2.addUri", #"[["\#(url)"]]"#) == 1)
        #expect(h.errorCode("aria2.addUri", #"["token:wrong",["\#(url)"]]"#) == 1)
        #expect(h.errorCode("aria2.getGlobalStat", #"["token:s3cre"]"#) == 1)
        #expect(try h.eventCount() == before)
        #expect(try h.result("system.listMethods") is [String])
        #expect(try h.result("system.listNotifications") is [String])
        #expect(try h.result("aria2.addUri", #"["token:s3cret",["\#(url)"]]"#) is String)
        #expect(try h.eventCount() == before + 1)
        // multicall: the token inside each call.
        let results = try #require(
            try h.result(
                "system.multicall",
                #"[[{"methodName":"aria2.getGlobalStat","params":["token:s3cret"]},{"methodName":"aria2.getGlobalStat"}]]"#
            ) as? [Any])
        #expect((results[0] as? [Any])?.count == 1)
        #expect((results[1] as? [String: Any])?["message"] as? String == "Unauthorized")
    }

    @Test func pauseUnpauseRemoveAndPurgeAreTheCLICommands() throws {
        let h = try RPCHarness(listen: false)
        let gid = try #require(try h.result("aria2.addUri", #"[["\#(h.file("a.bin"))"]]"#) as? String)
        #expect(try h.result("aria2.pause", #"["\#(gid)"]"#) as? String == gid)
        #expect(h.errorCode("aria2.pause", #"["\#(gid)"]"#) == 1)
        #expect(
            try h.result("aria2.tellWaiting", "[0,10,[\"status\"]]") as? [[String: String]] == [
                ["status": "paused"]
            ])
        #expect(try h.result("aria2.unpause", #"["\#(gid)"]"#) as? String == gid)
        #expect(try h.result("aria2.remove", #"["\#(gid)"]"#) as? String == gid)
        let stopped = try #require(
            try h.result("aria2.tellStopped", "[0,10,[\"gid\",\"status\"]]") as? [[String: String]])
        #expect(stopped == [["gid": gid, "status": "removed"]])
        #expect(try h.result("aria2.removeDownloadResult", #"["\#(gid)"]"#) as? String == "OK")
        #expect((try h.result("aria2.tellStopped", "[0,10]") as? [Any])?.isEmpty == true)
        let kinds = try h.ledger.log().map(\.entry.event.kind)
        #expect(
            Array(kinds.suffix(5)) == [
                "tasksAdded", "tasksPaused", "tasksResumed", "tasksDeleted", "trashPurged",
            ])
    }

    @Test func changePositionIsAMoveAndGlobalOptionsAreTheLedgersSettings() throws {
        let h = try RPCHarness(listen: false)
        var gids: [String] = []
        for i in 0..<3 {
            let url = h.file("f\(i)")
            gids.append(try #require(try h.result("aria2.addUri", #"[["\#(url)"]]"#) as? String))
        }
        #expect(try h.result("aria2.changePosition", #"["\#(gids[2])",0,"POS_SET"]"#) as? Int == 0)
        #expect(try h.result("aria2.changePosition", #"["\#(gids[2])",1,"POS_CUR"]"#) as? Int == 1)
        #expect(try h.result("aria2.changePosition", #"["\#(gids[0])",0,"POS_END"]"#) as? Int == 2)
        let order = try #require(try h.result("aria2.tellWaiting", "[0,10,[\"gid\"]]") as? [[String: String]])
        #expect(order.map { $0["gid"]! } == [gids[2], gids[1], gids[0]])
        let reversed = try #require(
            try h.result("aria2.tellWaiting", "[-1,2,[\"gid\"]]") as? [[String: String]])
        #expect(reversed.map { $0["gid"]! } == [gids[0], gids[1]])
        #expect(h.errorCode("aria2.changePosition", #"["\#(gids[0])",0,"POS_NOWHERE"]"#) == -32602)
        #expect(
            try h.result(
                "aria2.changeGlobalOption",
                #"[{"max-concurrent-downloads":"5","max-overall-download-limit":"1M"}]"#)
                as? String == "OK")
        #expect(h.ledger.list.maxDownloads == 5 && h.ledger.list.speedLimit == 1 << 20)
        let options = try #require(try h.result("aria2.getGlobalOption") as? [String: String])
        #expect(options["max-concurrent-downloads"] == "5")
        #expect(options["max-overall-download-limit"] == "1048576")
        let before = try h.eventCount()
        #expect(h.errorCode("aria2.changeGlobalOption", #"[{"max-concurrent-downloads":"x"}]"#) == 1)
        #expect(h.errorCode("aria2.changeGlobalOption", #"[{"max-overall-download-limit":"-5"}]"#) == 1)
        #expect(try h.eventCount() == before)
    }
}
