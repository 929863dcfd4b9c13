import Testing

@testable import LedgerCore

/// A `user:password@` in a task's URL is a credential: the add takes it out of the URL into the task's options
/// (plain here, sealed by the ledger before the append), so the URL the log keeps, shows and compares is bare.
struct URLLoginTests {
    @discardableResult
    private func add(_ urls: [String], into log: inout TestLog, options: TaskOptions = TaskOptions()) throws
        -> Decision
    {
        try log.must(
            .add(urls: urls, placement: .end, name: nil, sha256: nil, directory: nil, options: options))
    }

    @Test func theLoginLeavesTheURLForTheTasksOptions() throws {
        var log = TestLog()
        let d = try add(["https://alice:p%40ss:w@files.example.org:8443/pub/a.iso?x=1"], into: &log)
        let task = try #require(log.list.tasks[1])
        #expect(task.url == "https://files.example.org:8443/pub/a.iso?x=1")
        #expect(task.options.userinfo == .plain("alice:p%40ss:w"))
        #expect(task.options.hasPlainCredentials)
        #expect(task.options.redactedLines.map(\.value) == ["[redacted]"])
        // The payload round trip keeps it apart; the ledger seals it before this payload is ever written.
        #expect(try Entry.decode(kind: d.entry.event.kind, payload: d.entry.encodedPayload()) == d.entry)
        #expect(try DownloadList(snapshot: log.list.snapshotBytes()) == log.list)
    }

    @Test func anAtInThePathOrQueryIsNotALogin() throws {
        var log = TestLog()
        try add(["https://example.org/users/@bob/a.iso", "https://example.org/b.iso?who=a@b"], into: &log)
        #expect(log.list.tasks[1]?.url == "https://example.org/users/@bob/a.iso")
        #expect(log.list.tasks[1]?.options.userinfo == nil)
        #expect(log.list.tasks[2]?.options.userinfo == nil)
    }

    @Test func theSameFileWithAnotherLoginIsADuplicate() throws {
        var log = TestLog()
        try add(["https://alice:one@example.org/a.iso"], into: &log)
        #expect(throws: NothingAdded.self) {
            try log.list.decide(
                .add(
                    urls: ["https://bob:two@example.org/a.iso", "https://example.org/a.iso"], placement: .end,
                    name: nil, sha256: nil, directory: nil))
        }
    }

    @Test func anEmptyLoginIsSkippedAndItsURLShownRedacted() throws {
        var log = TestLog()
        let d = try add(["https://@example.org/a.iso", "https://example.org/b.iso"], into: &log)
        #expect(d.added == [1])
        #expect(d.skipped.count == 1)
        #expect(d.skipped.first?.reason.contains("user information") == true)
        var withSpace = TestLog()
        let e = try add(
            ["https://a\u{7F}b:secret-pw@example.org/a.iso", "https://example.org/c.iso"], into: &withSpace)
        #expect(e.skipped.allSatisfy { !$0.url.contains("secret-pw") })
    }

    @Test func aMirrorWithALoginIsRefusedWithoutEchoingIt() throws {
        var options = TaskOptions()
        options.mirrors = ["https://carol:hunter2@mirror.example.net/a.iso"]
        #expect {
            try options.validated()
        } throws: { error in
            "\(error)".contains("user:password") && !"\(error)".contains("hunter2")
        }
    }

    @Test func givenTwiceIsRefused() throws {
        var log = TestLog()
        var options = TaskOptions()
        options.userinfo = .plain("x:y")
        #expect(throws: LedgerError.self) {
            try log.list.decide(
                .add(
                    urls: ["https://u:p@example.org/a.iso"], placement: .end, name: nil, sha256: nil,
                    directory: nil, options: options))
        }
        try add(["https://example.org/a.iso"], into: &log, options: options)
        #expect(log.list.tasks[1]?.options.userinfo == .plain("x:y"))
    }
}
