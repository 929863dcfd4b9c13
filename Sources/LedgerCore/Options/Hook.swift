/// Which outcome of a download a hook follows (aria2's `on-download-complete` and `on-download-error`).
public enum Hook: String, Sendable, CaseIterable, Equatable, Hashable {
    /// The file is complete: after a `transferCompleted` fact.
    case complete
    /// The download failed for good (its retries spent, or a fault no retry mends): after a `transferFailed` fact.
    case error

    /// The setting's and the option's name: `on-download-complete`, `on-download-error`.
    public var settingName: String { "on-download-\(rawValue)" }

    /// The longest hook command taken, in bytes (Linux's `PATH_MAX`).
    public static let maxCommandBytes = 4096

    /// Checks what a hook command can be told from its text alone: an absolute path (aria2 runs the hook without
    /// a shell, so arguments or shell words make a path that does not exist), at most ``maxCommandBytes``, without
    /// control or bidirectional characters. Whether it names an executable file is the caller's to check.
    /// - Throws: `LedgerError.invalidValue`.
    public static func check(command: String) throws {
        guard command.hasPrefix("/") else {
            throw LedgerError.invalidValue("a hook must be an absolute path to a program, not '\(command)'")
        }
        guard command.utf8.count <= maxCommandBytes else {
            throw LedgerError.invalidValue("a hook's path is longer than \(maxCommandBytes) bytes")
        }
        guard
            !command.unicodeScalars.contains(where: {
                Validation.isControl($0) || Validation.isBidiControl($0)
            })
        else { throw LedgerError.invalidValue("a hook's path has control characters") }
    }

    /// The longest first line of output a `hookFinished` fact keeps, in characters.
    public static let maxLineCharacters = 200

    /// The first line of a hook's output as a fact keeps it: up to the first line break, control and bidirectional
    /// characters replaced by `?`, at most ``maxLineCharacters`` characters, surrounding spaces trimmed.
    public static func firstLine(of output: [UInt8]) -> String {
        let end = output.firstIndex { $0 == 0x0A || $0 == 0x0D } ?? output.endIndex
        var line = ""
        var count = 0
        for scalar in String(decoding: output[..<end], as: UTF8.self).unicodeScalars {
            guard count < maxLineCharacters else { break }
            let unsafe = Validation.isControl(scalar) || Validation.isBidiControl(scalar)
            line.unicodeScalars.append(unsafe ? "?" : scalar)
            count += 1
        }
        return String(line.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

/// How a hook ended.
public enum HookResult: Sendable, Equatable {
    /// It exited by itself with this status.
    case exited(Int)
    /// A signal it did not get from the downloader ended it.
    case signalled(Int)
    /// It ran past its time limit (milliseconds): its process group was sent SIGTERM, then SIGKILL.
    case timedOut(limitMs: Int64)
    /// It could not be started (the reason, e.g. `No such file or directory`).
    case notStarted(String)

    /// True when the hook exited with status 0.
    public var succeeded: Bool { self == .exited(0) }
}
