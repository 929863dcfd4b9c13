import Foundation
import Glibc

/// `openssl s_server -WWW` on 127.0.0.1 with a fresh self-signed certificate, serving the files of its own
/// temporary folder over HTTPS; the process is killed and the folder removed by `stop()` (or `deinit`).
///
/// Setting up waits without blocking a thread, so that it never starves the other tests of the few threads the
/// test runner has.
final class OpenSSLServer: @unchecked Sendable {
    /// The `openssl` command line tool, when installed.
    static let executable: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/bin/openssl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static var isAvailable: Bool { executable != nil }

    let folder: String
    private(set) var port: UInt16 = 0
    private let process = Process()

    private init(folder: String) {
        self.folder = folder
    }

    deinit { stop() }

    /// Makes the certificate, writes `files` (name to bytes) and starts the server on an ephemeral port.
    static func start(files: [String: [UInt8]]) async throws -> OpenSSLServer {
        guard let openssl = executable else { throw ServerFailure("openssl is not installed") }
        let server = OpenSSLServer(
            folder: FileManager.default.temporaryDirectory.path + "/tls-server-\(UUID().uuidString)")
        let folder = server.folder
        try FileManager.default.createDirectory(atPath: folder + "/www", withIntermediateDirectories: true)
        for (name, bytes) in files {
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/www/" + name))
        }
        let made = try await run(
            openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-days", "1",
                "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem",
            ])
        guard made == 0 else { throw ServerFailure("openssl req exited with \(made)") }

        // What s_server prints goes to a file: no pipe to drain, and `ACCEPT <host>:<port>` can be polled for.
        let log = folder + "/s_server.log"
        guard FileManager.default.createFile(atPath: log, contents: nil) else {
            throw ServerFailure("cannot create \(log)")
        }
        let p = server.process
        let serve = [
            openssl, "s_server", "-accept", "127.0.0.1:0", "-cert", folder + "/cert.pem", "-key",
            folder + "/key.pem", "-WWW",
        ]
        // Under coreutils `timeout` (in its own process group), so that a server outlives a crashed test
        // process by a minute at most.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/timeout") {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
            p.arguments = ["-s", "KILL", "60"] + serve
        } else {
            p.executableURL = URL(fileURLWithPath: openssl)
            p.arguments = Array(serve.dropFirst())
        }
        p.currentDirectoryURL = URL(fileURLWithPath: folder + "/www")
        p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        p.standardError = p.standardOutput
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && p.isRunning {
            if let port = acceptedPort(in: log) {
                server.port = port
                return server
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let printed = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        throw ServerFailure("s_server did not start: \(printed)")
    }

    func url(_ name: String) -> String { "https://127.0.0.1:\(port)/\(name)" }

    /// Kills the server (if still running) and removes its folder.
    func stop() {
        if process.isRunning {
            // SIGKILL, as children of the test runner inherit a mask that blocks SIGTERM. The server is killed
            // first, so that `timeout` reaps it and exits; the group goes only if that did not happen.
            let pid = process.processIdentifier
            let children =
                (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            for child in children.split(separator: " ").compactMap({ Int32($0) }) { kill(child, SIGKILL) }
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(-pid, SIGKILL) }
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The port of a complete `ACCEPT <host>:<port>` line in the file at `path`.
    private static func acceptedPort(in path: String) -> UInt16? {
        guard let printed = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let complete = printed.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard let line = complete.first(where: { $0.hasPrefix("ACCEPT") }),
            let colon = line.lastIndex(of: ":")
        else { return nil }
        return UInt16(line[line.index(after: colon)...])
    }

    /// Runs `executable` to its end without blocking a thread; returns its exit status.
    private static func run(_ executable: String, _ arguments: [String]) async throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        return try await withCheckedThrowingContinuation { continuation in
            p.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try p.run()
            } catch {
                p.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }
}

/// The TLS test server could not be set up.
struct ServerFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
