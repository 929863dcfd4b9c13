import Foundation
import LoopbackHTTP
import Testing

@Suite struct GetFolderTests {
    /// `get` saves into the current folder (or `--dir`): one this user cannot write is refused in one line before
    /// anything happens, as curl -O fails, with no ledger created, no task added and no file left.
    @Test func getIntoAFolderThisUserCannotWriteChangesNothing() async throws {
        let box = try DledgerSandbox()
        let shared = box.root + "/shared"
        let bin = shared + "/dledger"
        let home = box.root + "/nobody-home"
        let readOnly = box.root + "/read-only"
        for folder in [shared, home, readOnly] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        }
        try FileManager.default.copyItem(atPath: DledgerSandbox.binary, toPath: bin)
        for folder in [box.root, shared] { chmod(folder, 0o755) }
        chmod(readOnly, 0o555)
        try Self.giveToNobody(home)
        let ledger = home + "/ledger.sqlite"
        let environment = ["HOME": home, "DLEDGER_LEDGER": ledger, "XDG_DOWNLOAD_DIR": home, "NO_COLOR": "1"]
        let url = "http://127.0.0.1:9/never-asked.bin"

        let here = try await ScriptRun.run(
            bin, ["get", url], env: environment, user: "nobody", cwd: readOnly)
        #expect(here.status == 1)
        #expect(here.err == "error: cannot save into \(readOnly): Permission denied\n", "\(here.err)")
        let below = try await ScriptRun.run(
            bin, ["get", "--dir", readOnly + "/sub", url], env: environment, user: "nobody", cwd: home)
        #expect(below.status == 1)
        #expect(
            below.err == "error: cannot save into \(readOnly)/sub: \(readOnly): Permission denied\n",
            "\(below.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: readOnly) == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: home) == [])

        // A folder it may write, not there yet, is made as before.
        let server = try LoopbackServer()
        server.serve("/f.bin", Resource(size: 50_000, seed: 3))
        let made = try await ScriptRun.run(
            bin, ["get", "--dir", home + "/new/sub", server.url("/f.bin")], env: environment, user: "nobody",
            cwd: home)
        #expect(made.status == 0, "\(made.err)")
        #expect(
            FileManager.default.contents(atPath: home + "/new/sub/f.bin").map { [UInt8]($0) }
                == Body.generatedBytes(seed: 3, in: 0..<50_000))
        #expect(FileManager.default.fileExists(atPath: ledger))
    }

    /// Gives `path` to the user nobody (its group too).
    private static func giveToNobody(_ path: String) throws {
        guard let user = getpwnam("nobody") else { throw CocoaError(.fileNoSuchFile) }
        guard chown(path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw CocoaError(.fileWriteNoPermission)
        }
    }
}
