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
}
