import DownloadLedger
import Foundation

extension Context {
    /// The folder a new ledger downloads into: the user's download folder (``userDownloadFolder(_:)``), not the
    /// directory the first command happened to run in. An existing ledger keeps the folder it has.
    var newLedgerFolder: String { Self.userDownloadFolder(environment) }

    /// The user's download folder, as desktop programs find it: `$XDG_DOWNLOAD_DIR`, else what
    /// `xdg-user-dir DOWNLOAD` prints when that program exists and prints an absolute path other than `$HOME`
    /// (its answer when no download folder is configured), else `~/Downloads`. Each in normal form
    /// (`FileNaming.normalizedDirectory`); one that has none is passed over. The folder is not created here: the
    /// downloader makes it when a download first needs it.
    static func userDownloadFolder(_ env: [String: String], askingXDG: Bool = true) -> String {
        let homeGiven = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let home = FileNaming.normalizedDirectory(homeGiven) ?? "/"
        if let given = env["XDG_DOWNLOAD_DIR"], let folder = FileNaming.normalizedDirectory(given) {
            return folder
        }
        if askingXDG, let said = xdgUserDir(env).flatMap(FileNaming.normalizedDirectory), said != home {
            return said
        }
        return home == "/" ? "/Downloads" : home + "/Downloads"
    }

    /// The first line `xdg-user-dir DOWNLOAD` prints (nil when it is not on PATH or fails).
    private static func xdgUserDir(_ env: [String: String]) -> String? {
        let path = env["PATH"] ?? "/usr/bin:/bin"
        guard
            let program = path.split(separator: ":").map({ $0 + "/xdg-user-dir" }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = ["DOWNLOAD"]
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        let said = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { return nil }
        return String(decoding: said, as: UTF8.self).split(separator: "\n").first.map(String.init)
    }
}
