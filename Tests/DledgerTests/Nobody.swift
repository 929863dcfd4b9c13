import Foundation

/// Runs `bin args` as the user nobody, in `cwd`, with `environment` over this process's: root ignores file
/// permissions, so what a user without them meets is tried as one.
func runAsNobody(
    _ bin: String, _ args: [String], cwd: String = "/", environment extra: [String: String] = [:]
)
    async throws -> Finished
{
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
    p.arguments = ["-u", "nobody", "--", bin] + args
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    for (key, value) in extra { environment[key] = value }
    p.environment = environment
    p.currentDirectoryURL = URL(fileURLWithPath: cwd)
    return await (try Running(p, stdin: nil)).wait()
}

/// Gives `path` to the user nobody (its group too).
func giveToNobody(_ path: String) throws {
    guard let user = getpwnam("nobody") else { throw CocoaError(.fileNoSuchFile) }
    guard chown(path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
        throw CocoaError(.fileWriteNoPermission)
    }
}
