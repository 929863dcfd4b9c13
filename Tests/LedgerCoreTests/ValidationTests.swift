import Testing

@testable import LedgerCore

private func urlReason(_ raw: String) -> String? {
    do {
        _ = try Validation.url(raw)
        return nil
    } catch let LedgerError.invalidURL(_, reason) {
        return reason
    } catch {
        return "\(error)"
    }
}

struct ValidationTests {
    @Test(arguments: [
        ("http://example.com", "http://example.com"),
        ("HTTPS://Example.COM/a/b?x=1#f", "HTTPS://Example.COM/a/b?x=1#f"),
        ("  https://h.example/file.iso\n", "https://h.example/file.iso"),
        ("http://127.0.0.1:8080/x", "http://127.0.0.1:8080/x"),
        ("http://user:pw@host:1/x", "http://user:pw@host:1/x"),
        ("http://[::1]:80/x", "http://[::1]:80/x"),
        ("https://my_host-1.local:65535", "https://my_host-1.local:65535"),
        ("https://bücher.example/ä", "https://bücher.example/ä"),
    ])
    func validURLs(_ raw: String, _ cleaned: String) throws {
        #expect(try Validation.url(raw) == cleaned)
    }

    @Test func aURLOfTheLongestLengthIsTaken() throws {
        let longest = "http://example.com/" + String(repeating: "a", count: 65_536 - 19)
        #expect(longest.utf8.count == Validation.maxURLBytes)
        #expect(try Validation.url(longest) == longest)
    }

    @Test(arguments: [
        ("ftp://example.com/x", "only http and https"),
        ("foo", "no http(s) scheme"),
        ("example.com/x", "no http(s) scheme"),
        ("", "no http(s) scheme"),
        ("http://", "no host"),
        ("http:///path", "no host"),
        ("http://:80/x", "no host"),
        ("http://exa mple.com", "contains spaces or control characters"),
        ("http://example.com/a b", "contains spaces or control characters"),
        ("http://example.com/\u{7F}", "contains spaces or control characters"),
        ("http://example.com/caf\u{FFFD}", "not UTF-8 text"),
        ("http://example.com/\u{9B}2J", "contains spaces or control characters"),
        ("http://example.com/" + String(repeating: "a", count: 65_536 - 18), "longer than 65,536 bytes"),
        ("http://example.com:99999/", "bad port"),
        ("http://example.com:65536", "bad port"),
        ("http://example.com:/", "bad port"),
        ("http://example.com:8o/", "bad port"),
        ("http://example.com:-1/", "bad port"),
        ("http://exa*mple.com/", "bad host"),
        ("http://[::1/x", "bad IPv6 host"),
    ])
    func invalidURLs(_ raw: String, _ reason: String) {
        #expect(urlReason(raw) == reason)
    }

    @Test func names() throws {
        #expect(try Validation.name("Film (2024) – été 🎬.mkv") == "Film (2024) – été 🎬.mkv")
        #expect(try Validation.name(".hidden") == ".hidden")
        #expect(
            try Validation.name(String(repeating: "é", count: 127) + "x") == String(
                repeating: "é", count: 127) + "x")
        let cases: [(String, String)] = [
            ("", "empty"), (" \t ", "empty"), ("a/b", "contains a path separator"),
            ("/", "contains a path separator"),
            ("a\\b", "contains a path separator"), (".", "not a file name"), ("..", "not a file name"),
            ("a..b", "contains '..'"), ("x\0y", "contains control characters"),
            ("x\ny", "contains control characters"), ("x\u{9B}y", "contains control characters"),
            (String(repeating: "é", count: 128), "longer than 255 bytes"),
        ]
        for (raw, reason) in cases {
            #expect(throws: LedgerError.invalidName(raw, reason: reason)) { try Validation.name(raw) }
        }
    }

    /// Every bidirectional control is refused in a name a user gives (issue 26 §8): `report\u{202E}txt.exe`
    /// would show as `reportexe.txt`. Right-to-left text without controls is a name like any other.
    @Test(arguments: [
        0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
    ])
    func aBidiControlInANameIsRefused(_ code: UInt32) throws {
        let control = Character(Unicode.Scalar(code)!)
        let raw = "report\(control)txt.exe"
        let hex = String(code, radix: 16, uppercase: true)
        let shown = hex.count < 4 ? "0" + hex : hex
        let reason = "contains the bidirectional control U+\(shown), which makes a name display as another"
        #expect(throws: LedgerError.invalidName(raw, reason: reason)) { try Validation.name(raw) }
        #expect(Validation.isBidiControl(Unicode.Scalar(code)!))
    }

    @Test func rightToLeftTextWithoutControlsIsAName() throws {
        #expect(try Validation.name("דוח שנתי.pdf") == "דוח שנתי.pdf")
        #expect(try Validation.name("تقرير.txt") == "تقرير.txt")
        #expect(!Validation.isBidiControl("\u{2065}") && !Validation.isBidiControl("\u{202F}"))
    }

    @Test func titles() throws {
        #expect(try Validation.title("  Vidéos 🎬 ") == "Vidéos 🎬")
        #expect(throws: LedgerError.invalidTitle("empty")) { try Validation.title("\n ") }
        #expect(throws: LedgerError.invalidTitle("contains control characters")) {
            try Validation.title("a\tb")
        }
        #expect(throws: LedgerError.invalidTitle("longer than 200 bytes")) {
            try Validation.title(String(repeating: "x", count: 201))
        }
        #expect(try Validation.title(String(repeating: "x", count: 200)).count == 200)
    }

    @Test func checksums() throws {
        let hex = String(repeating: "0123456789ABCDEF", count: 4)
        #expect(try Validation.sha256(" \(hex) ") == hex.lowercased())
        for bad in [String(hex.dropLast()), hex + "0", String(hex.dropLast()) + "g", ""] {
            #expect(throws: LedgerError.invalidChecksum(bad)) { try Validation.sha256(bad) }
        }
    }

    @Test(arguments: [
        ("https://h/a/b/file.iso?x=1#y", "file.iso"),
        ("https://h/dir/", "dir"),
        ("https://host.example", "host.example"),
        ("https://host.example/", "host.example"),
        ("https://h/a%20b%C3%A9.txt", "a bé.txt"),
        ("https://h/100%", "100%"),
        ("https://h/%zz", "%zz"),
    ])
    func defaultNames(_ url: String, _ name: String) {
        #expect(DownloadList.defaultName(forURL: url) == name)
    }

    @Test func everyErrorIsOneLine() {
        let errors: [LedgerError] = [
            .noSuchTask(1), .taskInTrash(1), .taskNotInTrash(1), .noSuchSection(3, count: 0),
            .noSuchSection(3, count: 2),
            .indexOutOfRange(9, section: 1, count: 4), .invalidURL("x", reason: "r"),
            .invalidName("n", reason: "r"),
            .invalidTitle("r"), .invalidChecksum("c"), .invalidValue("v"), .sectionNotEmpty(1, tasks: 1),
            .sectionNotEmpty(1, tasks: 2), .needsManualSort(.name), .nothingToDo("n"), .nothingToUndo,
            .nothingToRedo,
            .cannotUndo(seq: 4, kind: "tasksDeleted", reason: "r"), .fileExists("/p"), .fileSystem("f"),
        ]
        for e in errors {
            #expect(!e.description.isEmpty)
            #expect(!e.description.contains("\n"))
        }
        #expect(LedgerError.noSuchSection(3, count: 2).description == "section index 3 out of range (0..1)")
        #expect(LedgerError.sectionNotEmpty(1, tasks: 1).description.contains("(1 task)"))
    }
}

struct URLIdentityTests {
    @Test(arguments: [
        ("HTTP://Example.ORG/a", "http://example.org/a"),
        ("http://example.org:80/a", "http://example.org/a"),
        ("https://example.org:443", "https://example.org/"),
        ("http://example.org", "http://example.org/"),
        ("http://example.org?q=1", "http://example.org/?q=1"),
        ("http://User:PW@EXAMPLE.org:/Path/A", "http://User:PW@example.org/Path/A"),
        ("http://[::1]:80/x", "http://[::1]/x"),
        ("https://example.org:80/x", "https://example.org:80/x"),
        ("http://example.org:8080/X?Y#Z", "http://example.org:8080/X?Y#Z"),
    ])
    func identityIgnoresSchemeAndHostCaseDefaultPortsAndEmptyPaths(_ url: String, _ identity: String) {
        #expect(Validation.identity(url) == identity)
        #expect(Validation.identity(identity) == identity)
    }

    @Test func duplicatesAreFoundByIdentityAndTheURLIsKeptAsTyped() {
        var log = TestLog()
        #expect(log.add("HTTP://Example.org:80") == [1])
        #expect(log.list.tasks[1]?.url == "HTTP://Example.org:80")
        #expect(log.list.task(withURL: "http://example.org/") == 1)
        #expect(throws: NothingAdded.self) {
            try log.list.decide(
                .add(urls: ["http://EXAMPLE.ORG/"], placement: .end, name: nil, sha256: nil, directory: nil))
        }
        log.run(.delete(.tasks([1]), mode: .all))
        log.run(.purge(nil))
        #expect(log.add("http://example.org/") == [2])
    }
}
