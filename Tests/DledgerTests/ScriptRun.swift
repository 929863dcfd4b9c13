import Foundation

/// Runs the repository's scripts (tools/bootstrap, tools/install.sh) and other programs with an environment
/// given in full, as root or as another user.
enum ScriptRun {
    /// The repository's root (this file is Tests/DledgerTests/ScriptRun.swift).
    static let root: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// A program found on this process's PATH, or nil.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"] {
            let candidate = dir + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `executable ARGS` to its end with exactly `env` as its environment (`PATH` defaults to this
    /// process's), in `cwd` (default: the repository's root); as `user` through runuser when given.
    static func run(
        _ executable: String, _ args: [String], env: [String: String] = [:], user: String? = nil,
        cwd: String? = nil
    ) async throws -> Finished {
        var environment = env
        if environment["PATH"] == nil {
            environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        }
        let p = Process()
        if let user {
            p.executableURL = URL(fileURLWithPath: which("runuser") ?? "/usr/sbin/runuser")
            p.arguments =
                ["-u", user, "--", "/usr/bin/env", "-i"]
                + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + [executable] + args
            p.environment = [:]
        } else {
            p.executableURL = URL(fileURLWithPath: executable)
            p.arguments = args
            p.environment = environment
        }
        p.currentDirectoryURL = URL(fileURLWithPath: cwd ?? root)
        return await (try Running(p, stdin: nil)).wait()
    }

    /// Writes an executable shell script.
    static func writeScript(_ path: String, _ body: String) throws {
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }
}
