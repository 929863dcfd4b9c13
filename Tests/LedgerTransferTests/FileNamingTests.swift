import LedgerTransfer
import Testing

struct FileNamingTests {
    @Test(arguments: [
        ("report.pdf", "report.pdf"),
        ("../../x", "x"),
        ("/etc/passwd", "passwd"),
        ("a/b", "b"),
        ("a\\b\\c.txt", "c.txt"),
        ("dir/", "dir"),
        ("  .hidden  ", "hidden"),
        ("name...", "name"),
        ("tab\there\u{0}.txt", "tabhere.txt"),
        ("evil\u{202E}txt.exe", "eviltxt.exe"),
        ("résumé.pdf", "résumé.pdf"),
    ])
    func sanitizeKeepsOneSafeComponent(input: String, expected: String) {
        #expect(FileNaming.sanitize(input) == expected)
    }

    @Test(arguments: ["", "..", ".", "/", "a/..", "...", " . ", "\u{1}\u{2}", "\\\\"])
    func sanitizeRefusesWhatHasNoName(input: String) {
        #expect(FileNaming.sanitize(input) == nil)
    }

    @Test func sanitizeBoundsLengthAndKeepsTheExtension() throws {
        let long = String(repeating: "é", count: 300) + ".tar.gz"
        let name = try #require(FileNaming.sanitize(long))
        #expect(name.utf8.count <= 255)
        #expect(name.hasSuffix(".tar.gz"))
        #expect(name.hasPrefix("ééé"))
    }

    @Test func contentDispositionPrefersTheExtendedName() {
        let header = "attachment; filename=\"plain.txt\"; filename*=UTF-8''na%C3%AFve%20file.txt"
        #expect(FileNaming.name(fromContentDisposition: header) == "naïve file.txt")
    }

    @Test func contentDispositionReadsQuotedAndBareNames() {
        #expect(
            FileNaming.name(fromContentDisposition: "attachment; filename=\"a \\\"b\\\"; c.txt\"")
                == "a \"b\"; c.txt")
        #expect(FileNaming.name(fromContentDisposition: "inline; FILENAME=bare.bin") == "bare.bin")
        #expect(
            FileNaming.name(fromContentDisposition: "attachment; filename*=iso-8859-1'en'caf%E9.txt")
                == "café.txt")
    }

    @Test func contentDispositionFallsBackWhenTheExtendedNameIsUnusable() {
        let header = "attachment; filename*=UTF-8''..%2F..; filename=\"ok.txt\""
        #expect(FileNaming.name(fromContentDisposition: header) == "ok.txt")
        #expect(FileNaming.name(fromContentDisposition: "attachment") == nil)
        #expect(FileNaming.name(fromContentDisposition: "attachment; filename=\"../..\"") == nil)
    }

    @Test func urlGivesItsLastPathComponentDecoded() {
        #expect(FileNaming.name(fromURL: "https://example.org/files/My%20File.iso?x=1#top") == "My File.iso")
        #expect(FileNaming.name(fromURL: "https://example.org/a/b/") == "b")
        #expect(FileNaming.name(fromURL: "https://example.org/..%2F..%2Fetc%2Fpasswd") == "passwd")
        #expect(FileNaming.name(fromURL: "https://example.org") == nil)
        #expect(FileNaming.name(fromURL: "https://example.org/") == nil)
    }

    @Test func candidatesNumberBeforeTheExtension() {
        #expect(Array(FileNaming.candidates(base: "a.txt").prefix(3)) == ["a.txt", "a (1).txt", "a (2).txt"])
        #expect(Array(FileNaming.candidates(base: "a.tar.gz").prefix(2)) == ["a.tar.gz", "a (1).tar.gz"])
        #expect(Array(FileNaming.candidates(base: "README").prefix(2)) == ["README", "README (1)"])
    }

    @Test func candidatesStayWithinTheLengthLimit() {
        let base = String(repeating: "x", count: 251) + ".bin"
        for name in FileNaming.candidates(base: base).prefix(12) {
            #expect(name.utf8.count <= 255)
            #expect(name.hasSuffix(".bin"))
        }
    }

    /// A download directory is absolute, its components (as the kernel splits them: on the byte `/`) neither empty
    /// nor `.` or `..`, with no control character; one trailing slash is allowed.
    @Test(arguments: [
        ("/", true), ("/home/me/Downloads", true), ("/a/", true), ("/a b/ü/...", true), ("/.hidden/x", true),
        ("/\u{301}x", true), ("/a/\u{301}", true),
        ("", false), ("a/b", false), ("//", false), ("/a//b", false), ("/a//", false), ("/.", false),
        ("/a/..", false), ("/../x", false), ("/a/./b", false), ("/a\u{0}b", false), ("/a\nb", false),
        ("/a\u{7F}", false), ("/a\u{85}b", false), ("/a\u{9F}", false), ("/../\u{301}", false),
        ("/" + String(repeating: "a", count: 4095), false), ("/" + String(repeating: "a", count: 4094), true),
    ])
    func aDownloadDirectoryIsAnAbsolutePathWithoutDotsOrControls(path: String, safe: Bool) {
        #expect(FileNaming.isSafeDirectory(path) == safe, "\(path.unicodeScalars.map { $0.value })")
    }

    /// The same rule said another way, over random paths of slashes, dots, letters, controls and combining marks.
    @Test func aDownloadDirectoryMatchesTheRuleOnRandomPaths() {
        let pieces = ["/", "/", ".", ".", "a", "é", "\u{301}", "\u{1}", "\u{85}", "\u{A0}", " "]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<20_000 {
            var path = ""
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            for step in 0..<Int(state % 9) { path += pieces[Int((state >> (UInt64(step) * 4 + 8)) % 11)] }
            let scalars = Array(path.unicodeScalars)
            let components = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
                .dropFirst()
            let expected =
                scalars.first == "/" && !scalars.contains { $0.properties.generalCategory == .control }
                && (path == "/"
                    || components.enumerated().allSatisfy { n, part in
                        let last = n == components.count - 1
                        return (part.isEmpty && last && components.count > 1)
                            || (!part.isEmpty && !part.elementsEqual(".".utf8)
                                && !part.elementsEqual("..".utf8))
                    })
            #expect(FileNaming.isSafeDirectory(path) == expected, "\(scalars.map { $0.value })")
        }
    }
}
