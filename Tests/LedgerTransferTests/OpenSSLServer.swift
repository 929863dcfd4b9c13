import Foundation
import Glibc

/// `openssl s_server -WWW` on 127.0.0.1 with a fresh self-signed certificate, serving the files of its own
/// temporary folder over HTTPS; the process is killed and the folder removed by `stop()` (or `deinit`).
final class OpenSSLServer: @unchecked Sendable {
    /// The `openssl` command line tool, when installed.
    static let executable: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/bin/openssl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static var isAvailable: Bool { executable != nil }

    let folder: String
    private(set) var port: UInt16 = 0
    private let process = Process()

    /// Makes the certificate, writes `files` (name to bytes) and starts the server on an ephemeral port.
    init(files: [String: [UInt8]]) throws {
        guard let openssl = Self.executable else { throw ServerFailure("openssl is not installed") }
        folder = FileManager.default.temporaryDirectory.path + "/tls-server-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        let request = try Self.run(
            openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-days", "1",
                "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem",
            ], in: folder)
        guard request == 0 else { throw ServerFailure("openssl req exited \(request)") }

        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = [
            "s_server", "-accept", "127.0.0.1:0", "-cert", folder + "/cert.pem", "-key", folder + "/key.pem",
            "-WWW",
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // s_server prints `ACCEPT 127.0.0.1:<port>` once it listens.
        var printed = ""
        var accepted: UInt16?
        let reader = output.fileHandleForReading
        while accepted == nil {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            printed += String(decoding: chunk, as: UTF8.self)
            accepted = Self.acceptedPort(printed)
        }
        guard let port = accepted else {
            stop()
            throw ServerFailure("s_server did not start: \(printed)")
        }
        self.port = port
        // Keep draining what it logs per connection, so a full pipe never blocks it.
        reader.readabilityHandler = { handle in
            if handle.availableData.isEmpty { handle.readabilityHandler = nil }
        }
    }

    deinit { stop() }

    func url(_ name: String) -> String { "https://127.0.0.1:\(port)/\(name)" }

    /// Kills the server (if still running) and removes its folder.
    func stop() {
        (process.standardOutput as? Pipe)?.fileHandleForReading.readabilityHandler = nil
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The port of a complete `ACCEPT <host>:<port>` line in `printed`.
    private static func acceptedPort(_ printed: String) -> UInt16? {
        let complete = printed.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard let line = complete.first(where: { $0.hasPrefix("ACCEPT") }),
            let colon = line.lastIndex(of: ":")
        else { return nil }
        return UInt16(line[line.index(after: colon)...])
    }

    private static func run(_ executable: String, _ arguments: [String], in folder: String) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.currentDirectoryURL = URL(fileURLWithPath: folder)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }
}

/// The TLS test server could not be set up.
struct ServerFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
