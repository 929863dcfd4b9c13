import Foundation

/// A network namespace of its own (`unshare -n`), its loopback up, held open by a `sleep` until ``remove()``: a
/// test runs `dledger` in it (``enter(_:)``) and lets it reach a server of this process's namespace only through a
/// relay listening in it (`TCPRelay(to:listeningIn:)`). ``silence()`` takes its loopback down: from then on every
/// packet in it is dropped and no connection is closed or reset, as when a network goes silent. (A relay that
/// merely stops forwarding is not silent: the kernel still acknowledges what the client sends and answers its
/// keepalives.)
///
/// Needs root (`unshare`, `nsenter`, `setns`) and `ip`: ``isAvailable``.
final class NetworkNamespace: @unchecked Sendable {
    /// The namespace, as `nsenter --net=` and `setns` take it.
    let path: String
    private let holder: Process

    /// Whether this machine lets a test make one: root, with `unshare`, `nsenter` and `ip`.
    static var isAvailable: Bool {
        geteuid() == 0
            && ["/usr/bin/unshare", "/usr/bin/nsenter"].allSatisfy {
                FileManager.default.isExecutableFile(atPath: $0)
            }
            && ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].contains {
                FileManager.default.isExecutableFile(atPath: $0)
            }
    }

    private static let searchPath = "/usr/sbin:/sbin:/usr/bin:/bin"

    init() throws {
        holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        holder.arguments = ["-n", "sh", "-c", "ip link set lo up && echo up && exec sleep 600"]
        holder.environment = ["PATH": Self.searchPath]
        let output = Pipe()
        holder.standardOutput = output
        try holder.run()
        let said = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard said.hasPrefix("up") else {
            holder.terminate()
            holder.waitUntilExit()
            throw POSIXError(.EPERM)
        }
        path = "/proc/\(holder.processIdentifier)/ns/net"
    }

    /// Makes `process` run in the namespace (through `nsenter`, which execs it: its pid stays the one started).
    func enter(_ process: Process) {
        let program = process.executableURL?.path ?? ""
        process.arguments = ["--net=" + path, "--", program] + (process.arguments ?? [])
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nsenter")
    }

    /// Takes the namespace's loopback down: every packet in it is dropped from now on, nothing is closed.
    func silence() throws { try link("down") }

    /// Brings the loopback up again: packets flow, and connections that outlived the silence go on.
    func speak() throws { try link("up") }

    private func link(_ state: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nsenter")
        process.arguments = ["--net=" + path, "--", "sh", "-c", "ip link set lo " + state]
        process.environment = ["PATH": Self.searchPath]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw POSIXError(.EPERM) }
    }

    /// Ends the namespace's holder (the namespace goes with the last socket in it).
    func remove() {
        holder.terminate()
        holder.waitUntilExit()
    }

    /// Runs `body` on a thread of its own that entered the namespace at `path` (`setns` moves only the calling
    /// thread): sockets it makes belong to that namespace for good.
    static func inside<T: Sendable>(_ path: String, _ body: @escaping @Sendable () throws -> T) throws -> T {
        let result = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                result.value = .failure(POSIXError(.ENOENT))
                return
            }
            defer { close(fd) }
            guard setNamespace(fd, newNetworkNamespace) == 0 else {
                result.value = .failure(POSIXError(.EPERM))
                return
            }
            result.value = Result { try body() }
        }
        thread.start()
        done.wait()
        return try result.value!.get()
    }

    /// `setns(2)`, which Glibc's Swift module does not export.
    private static let setNamespace = unsafeBitCast(
        dlsym(dlopen(nil, RTLD_NOW), "setns"), to: (@convention(c) (Int32, Int32) -> Int32).self)
    /// `CLONE_NEWNET` (not exported either).
    private static let newNetworkNamespace: Int32 = 0x4000_0000

    private final class ResultBox<T>: @unchecked Sendable {
        var value: Result<T, any Error>?
    }
}
