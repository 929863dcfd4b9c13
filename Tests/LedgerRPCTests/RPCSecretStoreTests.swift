import Foundation
import LedgerRPCServer
import Testing

/// The secret `serve` makes when none is given: random, 0600, the same at every start, never through a link.
@Suite struct RPCSecretStoreTests {
    let root = NSTemporaryDirectory() + "secret-test-" + UUID().uuidString

    func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test func theSecretIsMadeOnceKeptPrivateAndReadAgain() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let store = try RPCSecretStore(environment: [
            "XDG_CONFIG_HOME": root + "/config", "HOME": "/nonexistent",
        ])
        #expect(store.path == root + "/config/dledger/rpc-secret")
        let first = try store.secret()
        #expect(first.utf8.count == 32)
        #expect(first.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(try store.secret() == first)
        #expect(mode(store.path) == 0o600)
        #expect(mode(store.folder) == 0o700)
        #expect(try String(contentsOfFile: store.path, encoding: .utf8) == first + "\n")
        // No temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder) == ["rpc-secret"])
        // Another config folder: another random secret.
        let other = try RPCSecretStore(environment: ["XDG_CONFIG_HOME": root + "/other"])
        #expect(try other.secret() != first)
    }

    @Test func theFolderComesFromXDGConfigHomeElseHome() throws {
        #expect(try RPCSecretStore(environment: ["HOME": "/home/me"]).folder == "/home/me/.config/dledger")
        #expect(
            try RPCSecretStore(environment: ["HOME": "/home/me", "XDG_CONFIG_HOME": "/cfg/"]).folder
                == "/cfg/dledger")
        // A relative XDG_CONFIG_HOME is ignored, as the XDG specification says.
        #expect(
            try RPCSecretStore(environment: ["HOME": "/home/me", "XDG_CONFIG_HOME": "cfg"]).folder
                == "/home/me/.config/dledger")
    }

    @Test func aLinkOrAFileOthersMayReadIsRefusedNotUsed() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let config = root + "/config"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let elsewhere = root + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        // dledger/ a link: refused, nothing written where it points.
        try FileManager.default.createSymbolicLink(
            atPath: config + "/dledger", withDestinationPath: elsewhere)
        let store = try RPCSecretStore(environment: ["XDG_CONFIG_HOME": config])
        #expect(throws: RPCSecretError.self) { try store.secret() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
        try FileManager.default.removeItem(atPath: config + "/dledger")
        // rpc-secret a link (to a file an attacker reads, or one they wrote): refused.
        try FileManager.default.createDirectory(
            atPath: config + "/dledger", withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: elsewhere + "/known", contents: Data("known\n".utf8)))
        chmod(elsewhere + "/known", 0o600)
        try FileManager.default.createSymbolicLink(
            atPath: store.path, withDestinationPath: elsewhere + "/known")
        do {
            _ = try store.secret()
            Issue.record("a link was followed")
        } catch {
            #expect(error.description.contains("symbolic link"))
        }
        try FileManager.default.removeItem(atPath: store.path)
        // A file others may read: refused with what to do.
        #expect(FileManager.default.createFile(atPath: store.path, contents: Data("mine\n".utf8)))
        chmod(store.path, 0o644)
        do {
            _ = try store.secret()
            Issue.record("a readable secret was used")
        } catch {
            #expect(error.description.contains("chmod 600"))
        }
        // The user's own secret, kept private, is used as written.
        chmod(store.path, 0o600)
        #expect(try store.secret() == "mine")
    }

    @Test func theAriaNgLinkCarriesTheSecretInBase64URL() {
        let link = RPCSecretStore.ariaNgLink(base: "http://ariang.example/", port: 6800, secret: "a?b>c")
        #expect(link == "http://ariang.example/#!/settings/rpc/set/ws/127.0.0.1/6800/jsonrpc/YT9iPmM")
    }
}
