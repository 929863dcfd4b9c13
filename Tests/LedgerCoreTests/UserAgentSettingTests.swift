import Testing

@testable import LedgerCore

/// The ledger's default user agent (`dledger set user-agent`): a text setting of the ``Setting`` table, one event
/// (`userAgentChanged`), undone and redone as every setting, read back from the log and a snapshot.
struct UserAgentSettingTests {
    @Test func itIsATextSettingThatUndoTakesBack() throws {
        var log = TestLog()
        #expect(log.list[.userAgent] == .text(""))
        try log.must(.set(.userAgent, .text("  fetcher/2.0 (+https://example.com)  ")))
        // Trimmed as a task's --user-agent is.
        #expect(log.list[.userAgent] == .text("fetcher/2.0 (+https://example.com)"))
        let logged = try #require(log.entries.last)
        #expect(logged.entry.event.kind == "userAgentChanged")
        #expect(
            String(decoding: logged.entry.encodedPayload(), as: UTF8.self)
                == #"{"userAgent":"fetcher/2.0 (+https://example.com)"}"#)
        log.refuses(
            .set(.userAgent, .text("fetcher/2.0 (+https://example.com)")),
            with: .nothingToDo("user-agent is already 'fetcher/2.0 (+https://example.com)'"))
        try log.must(.undo)
        #expect(log.list[.userAgent] == .text(""))
        try log.must(.redo)
        #expect(log.list[.userAgent].text == "fetcher/2.0 (+https://example.com)")
        let read = try DownloadList(snapshot: log.list.snapshotBytes())
        #expect(read == log.list)
        try log.must(.set(.userAgent, .text("")))
        log.refuses(.set(.userAgent, .text("")), with: .nothingToDo("user-agent is already the default"))
    }

    @Test func badValuesAreRefusedAndNothingIsDecided() throws {
        let log = TestLog()
        for bad in ["   ", "a\u{7}b", String(repeating: "x", count: 1025)] {
            #expect(log.error(of: .set(.userAgent, .text(bad))) != nil, "\(bad.prefix(10))")
        }
        #expect(
            log.error(of: .set(.userAgent, .number(3))) as? LedgerError
                == .invalidValue("user-agent takes a text"))
        #expect(
            log.error(of: .set(.maxSize, .text("big"))) as? LedgerError
                == .invalidValue("max-size takes a number"))
    }

    @Test func aDamagedPayloadIsRefused() {
        for (kind, payload) in [
            ("userAgentChanged", #"{"userAgent":3}"#), ("userAgentChanged", #"{}"#),
            ("userAgentChanged", #"{"userAgent":"a\u0007b"}"#), ("userAgentChanged", #"{"userAgent":" x"}"#),
        ] {
            #expect(throws: PayloadError.self, "\(payload)") {
                try Entry.decode(kind: kind, payload: Array(payload.utf8))
            }
        }
    }

    /// Every setting of the table has its own kind, a payload key, and a default that is not a change.
    @Test func theTableIsWhole() {
        #expect(Set(Setting.allCases.map(\.spec.kind)).count == Setting.allCases.count)
        for setting in Setting.allCases {
            #expect(setting.spec.kind.setting == setting)
            #expect(setting.spec.defaultValue.isDefault)
            // Setting what it already is decides nothing (a new list has at most 3 downloads, not the default).
            let fresh = TestLog()
            #expect(fresh.error(of: .set(setting, fresh.list[setting])) != nil, "\(setting)")
        }
    }
}
