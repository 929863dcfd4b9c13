import Foundation
import LoopbackHTTP
import Testing

/// libcurl and libpq are opened by the commands that use them, not by every command at its start (docs/layout.md):
/// what the dynamic loader itself reports (`LD_DEBUG=libs`) for a command that reads a ledger and for a download.
@Suite struct LibraryLoadingTests {
    /// Runs `dledger ARGS` with the dynamic loader reporting to a file; returns the run and the libraries it
    /// initialised (their paths).
    func loading(_ box: DledgerSandbox, _ args: String...) async throws -> (Finished, [String]) {
        let report = box.root + "/ld-report"
        let finished = try await box.run(args, env: ["LD_DEBUG": "libs", "LD_DEBUG_OUTPUT": report])
        var libraries: [String] = []
        let names = try FileManager.default.contentsOfDirectory(atPath: box.root)
        // One file per process: `<report>.<pid>`.
        for name in names where name.hasPrefix("ld-report.") {
            let text = try String(contentsOfFile: box.root + "/" + name, encoding: .utf8)
            for line in text.split(separator: "\n") where line.contains("calling init:") {
                let path = line.split(separator: ":").last.map(String.init) ?? ""
                libraries.append(path.trimmingCharacters(in: .whitespaces))
            }
            try FileManager.default.removeItem(atPath: box.root + "/" + name)
        }
        return (finished, libraries)
    }

    @Test func readingALedgerOpensNeitherLibcurlNorLibpq() async throws {
        let box = try DledgerSandbox()
        #expect(try await box.run("add", "https://example.org/a.iso").status == 0)
        let (ls, libraries) = try await loading(box, "ls")
        #expect(ls.status == 0)
        #expect(ls.out.contains("a.iso"))
        // The report is real: the libraries every command needs are in it.
        #expect(libraries.contains { $0.contains("libsqlite3") }, "\(libraries)")
        #expect(!libraries.contains { $0.contains("libcurl") }, "\(libraries)")
        #expect(!libraries.contains { $0.contains("libpq") }, "\(libraries)")
    }

    @Test func aDownloadOpensLibcurlAndNotLibpq() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 300_000, seed: 4))
        let (get, libraries) = try await loading(box, "get", server.url("/a.bin"))
        #expect(get.status == 0, "\(get.err)")
        #expect(box.contents("a.bin") == Body.generatedBytes(seed: 4, in: 0..<300_000))
        #expect(libraries.contains { $0.contains("libcurl") }, "\(libraries)")
        #expect(!libraries.contains { $0.contains("libpq") }, "\(libraries)")
    }

    /// `dledger ARGS` in a mount namespace of its own where libcurl's file is empty, as on a machine without
    /// Debian's libcurl4 (root and `unshare` needed).
    func runWithoutLibcurl(_ box: DledgerSandbox, _ args: String...) async throws -> Finished {
        let library = URL(fileURLWithPath: Self.libcurl).resolvingSymlinksInPath().path
        let process = box.process([])
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        let script = "mount --bind /dev/null \"$0\" && exec \"$@\""
        process.arguments = ["-m", "sh", "-c", script, library, DledgerSandbox.binary] + args
        return try await Running(process, stdin: nil).wait()
    }

    static let libcurl = "/usr/lib/x86_64-linux-gnu/libcurl.so.4"

    static var canHideLibcurl: Bool {
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
            && FileManager.default.fileExists(atPath: libcurl)
    }

    /// Without libcurl the ledger is still read; a download says in one line what is missing and places nothing.
    @Test(.enabled(if: canHideLibcurl))
    func withoutLibcurlAListIsReadAndADownloadSaysWhatToInstall() async throws {
        let box = try DledgerSandbox()
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 100_000, seed: 5))
        #expect(try await box.run("add", "https://example.org/b.iso").status == 0)
        let ls = try await runWithoutLibcurl(box, "ls")
        #expect(ls.status == 0, "\(ls.err)")
        #expect(ls.out.contains("b.iso"))
        let get = try await runWithoutLibcurl(box, "get", server.url("/a.bin"))
        #expect(get.status != 0)
        let errors = get.err.split(separator: "\n")
        #expect(errors.count == 1, "\(get.err)")
        #expect(get.err.contains("cannot load libcurl"), "\(get.err)")
        #expect(get.err.contains("install the Debian package libcurl4"), "\(get.err)")
        #expect(box.contents("a.bin") == nil)
        // With libcurl there again, the same download goes through.
        #expect(try await box.run("get", server.url("/a.bin")).status == 0)
        #expect(box.contents("a.bin") == Body.generatedBytes(seed: 5, in: 0..<100_000))
    }
}
