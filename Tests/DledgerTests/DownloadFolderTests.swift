import Foundation
import LoopbackHTTP
import Testing

/// Where files go: `get` into the current directory (as curl -O, wget and aria2c), `add`, `run` and `serve` into
/// the ledger's folder, which a new ledger takes from the user's download folder (`$XDG_DOWNLOAD_DIR`, else
/// `xdg-user-dir DOWNLOAD`, else `~/Downloads`); `set` shows it and `set dir` changes it.
@Suite struct DownloadFolderTests {
    static func isFolder(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// The folder of task `id`, as `ls --json` shows it.
    static func folder(_ box: DledgerSandbox, _ id: Int, env: [String: String] = [:]) async throws -> String?
    {
        let list = try await box.run(["ls", "--json"], env: env).json as? [String: Any]
        let sections = list?["sections"] as? [[String: Any]] ?? []
        let task = sections.flatMap { $0["tasks"] as? [[String: Any]] ?? [] }.first {
            ($0["id"] as? Int) == id
        }
        return task?["directory"] as? String
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func getSavesIntoTheCurrentDirectoryAndPrintsThePath(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 20_000, seed: 1))
        server.serve("/b.bin", Resource(size: 10_000, seed: 2))
        server.serve("/c.bin", Resource(size: 10_000, seed: 3))
        let here = box.root + "/here"
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        let r = try await box.run("get", server.url("/a.bin"), cwd: here)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("saved #1 \(here)/a.bin\n"))
        #expect(FileManager.default.contents(atPath: here + "/a.bin")?.count == 20_000)
        #expect(box.contents("a.bin") == nil, "not in the ledger's folder")
        let elsewhere = box.root + "/elsewhere"
        let given = try await box.run("get", "--dir", elsewhere, server.url("/b.bin"), cwd: here)
        #expect(given.status == 0, "\(given.err)")
        #expect(given.out.contains("saved #2 \(elsewhere)/b.bin\n"))
        // add (and run) still use the ledger's folder, not the directory they run in.
        #expect(try await box.run("add", server.url("/c.bin"), cwd: here).status == 0)
        #expect(try await Self.folder(box, 3) == box.downloads)
        #expect(try await box.run("run", "--until-idle", cwd: here).status == 0)
        #expect(box.contents("c.bin")?.count == 10_000)
        #expect(!FileManager.default.fileExists(atPath: here + "/c.bin"))
    }

    /// `$XDG_DOWNLOAD_DIR` first; made by the downloader when a download needs it, not by `add`; the first add
    /// says where files go, once; an existing ledger keeps its folder when the environment changes.
    @Test(arguments: LedgerStoreKind.allCases)
    func aNewLedgerTakesTheUsersDownloadFolderAndSaysSo(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let server = try LoopbackServer()
        server.serve("/a.bin", Resource(size: 5_000, seed: 1))
        server.serve("/b.bin", Resource(size: 5_000, seed: 2))
        let mine = box.root + "/media/Downloads"
        let env = ["XDG_DOWNLOAD_DIR": mine + "/"]
        let first = try await box.run(["add", server.url("/a.bin")], env: env)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.hasSuffix("downloads will go to \(mine) (dledger set dir PATH to change)\n"))
        #expect(!FileManager.default.fileExists(atPath: mine), "the folder is made when a download needs it")
        let second = try await box.run(["add", server.url("/b.bin")], env: ["XDG_DOWNLOAD_DIR": box.root])
        #expect(second.status == 0 && !second.out.contains("downloads will go to"), "\(second.out)")
        #expect(try await Self.folder(box, 2) == mine, "an existing ledger keeps its folder")
        #expect(try await box.run("run", "--until-idle").status == 0)
        #expect(FileManager.default.contents(atPath: mine + "/a.bin")?.count == 5_000)
        #expect(FileManager.default.contents(atPath: mine + "/b.bin")?.count == 5_000)
        #expect(box.contents("a.bin") == nil, "not the directory the commands ran in")

        // With --json the line goes to stderr (stdout is the document); with --dir it says what it is for.
        let other = try DledgerSandbox(store: store)
        let json = try await other.run(["add", "--json", "https://example.com/x"], env: env)
        #expect(
            json.json != nil && json.err == "downloads will go to \(mine) (dledger set dir PATH to change)\n")
        let third = try DledgerSandbox(store: store)
        let dir = try await third.run(["add", "--dir", third.root, "https://example.com/x"], env: env)
        #expect(
            dir.out.hasSuffix("downloads without --dir will go to \(mine) (dledger set dir PATH to change)\n")
        )
    }

    /// Without `$XDG_DOWNLOAD_DIR`: what `xdg-user-dir DOWNLOAD` prints, unless that is `$HOME` (its answer when
    /// no folder is configured) or not absolute; without the program, `~/Downloads`.
    // One store: how the environment names the folder; a new PostgreSQL ledger taking it is aNewLedgerTakes….
    @Test func withoutXDGDownloadDirXdgUserDirElseHomeDownloads() async throws {
        let cases: [(said: String?, expected: (DledgerSandbox) -> String)] = [
            ("/srv/dl", { _ in "/srv/dl" }),
            ("$HOME", { $0.home + "/Downloads" }),
            ("Downloads", { $0.home + "/Downloads" }),
            (nil, { $0.home + "/Downloads" }),
        ]
        for c in cases {
            let box = try DledgerSandbox()
            let bin = box.root + "/bin"
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            if let said = c.said {
                try ScriptRun.writeScript(bin + "/xdg-user-dir", "[ \"$1\" = DOWNLOAD ] && echo \"\(said)\"")
            }
            let env = ["XDG_DOWNLOAD_DIR": "", "PATH": bin]
            let r = try await box.run(["add", "https://example.com/x"], env: env)
            #expect(r.status == 0, "\(r.err)")
            #expect(try await Self.folder(box, 1, env: env) == c.expected(box), "\(c.said ?? "no program")")
        }
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func setShowsTheFolderAndSetDirChangesItForLaterTasksOnly(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        #expect(try await box.run("add", "https://example.com/a").status == 0)
        let shown = try await box.run("set")
        #expect(shown.out.hasPrefix("dir                        \(box.downloads)\n"))
        #expect(
            ((try await box.run("set", "--json")).json as? [String: Any])?["dir"] as? String == box.downloads)
        let films = box.root + "/Films"
        let r = try await box.run("set", "dir", "../Films/", cwd: box.downloads)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "download folder set to \(films): for tasks added from now on\n")
        #expect(try await box.run("add", "https://example.com/b").status == 0)
        #expect(try await Self.folder(box, 1) == box.downloads)
        #expect(try await Self.folder(box, 2) == films)
        let log = try await box.run("log")
        #expect(log.out.contains("directoryChanged"))
        #expect(try await box.run("undo", "2").status == 0)
        #expect((try await box.run("set")).out.hasPrefix("dir                        \(box.downloads)\n"))
        let same = try await box.run("set", "dir", box.downloads)
        #expect(same.status != 0 && same.err.contains("downloads already go to \(box.downloads)"))
    }

    /// A folder `set dir` cannot take: one clear line, exit 64, no event, and no ledger created for it.
    @Test(arguments: LedgerStoreKind.allCases)
    func aBadFolderIsRefusedAndNothingIsWritten(store: LedgerStoreKind) async throws {
        let box = try DledgerSandbox(store: store)
        let file = box.root + "/file"
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        let fresh = try await box.run("set", "dir", file)
        #expect(fresh.status == 64)
        #expect(fresh.err.hasPrefix("error: set dir \(file): not a folder\n"))
        #expect(try !box.ledgerExists(), "no ledger for a refused command")
        #expect(try await box.run("add", "https://example.com/a").status == 0)
        let events = try await box.eventCount()
        for bad in [file, file + "/below", "/tmp/a\u{7}b", "", "/" + String(repeating: "x", count: 5000)] {
            let r = try await box.run("set", "dir", bad)
            #expect(r.status == 64, "\(bad.debugDescription): \(r.err)")
            #expect(r.err.split(separator: "\n").first?.hasPrefix("error: set dir") == true, "\(r.err)")
        }
        #expect(try await box.eventCount() == events)
        #expect(try await box.run("set", "dir").status == 64)
    }
}
