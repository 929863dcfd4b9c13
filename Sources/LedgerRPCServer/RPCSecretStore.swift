import Foundation
import Glibc

/// The secret `dledger serve` uses when none is given: random (the kernel's CSPRNG), kept in
/// `$XDG_CONFIG_HOME/dledger/rpc-secret` (else `~/.config/dledger/rpc-secret`), mode 0600, the same at every start.
///
/// The config folder itself is opened as the user set it up (it may be a link to their dotfiles); `dledger/` is
/// created 0700 and opened without following a link, and so is the file. A folder or file owned by someone else, a
/// file others may read, or one that is not a regular file is refused, never used or repaired.
///
/// ```swift
/// let store = try RPCSecretStore(environment: ProcessInfo.processInfo.environment)
/// let secret = try store.secret()          // made on first use, read after
/// ```
public struct RPCSecretStore: Sendable {
    /// The folder the secret lives in (`…/dledger`).
    public let folder: String
    /// The file's name in ``folder``.
    public static let fileName = "rpc-secret"
    /// The longest secret read from the file.
    static let maxLength = 1024

    /// The file's path.
    public var path: String { folder + "/" + Self.fileName }

    /// Finds the folder from `XDG_CONFIG_HOME` (when absolute), else `HOME`, else the password database.
    /// - Throws: ``RPCSecretError`` when there is no home to put it in.
    public init(environment: [String: String]) throws(RPCSecretError) {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            folder = Self.trimmed(config) + "/dledger"
            return
        }
        var home = environment["HOME"] ?? ""
        if !home.hasPrefix("/"), let entry = getpwuid(geteuid()), let dir = entry.pointee.pw_dir {
            home = String(cString: dir)
        }
        guard home.hasPrefix("/") else {
            throw RPCSecretError("no home folder for the RPC secret (set XDG_CONFIG_HOME or HOME)")
        }
        folder = Self.trimmed(home) + "/.config/dledger"
    }

    private static func trimmed(_ path: String) -> String {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p == "/" ? "" : p
    }

    /// The secret: read from the file, or made and written there when there is none.
    /// - Throws: ``RPCSecretError`` when the folder or file cannot be made, or is refused (see the type).
    public func secret() throws(RPCSecretError) -> String {
        let dir = try openFolder()
        defer { close(dir) }
        if let existing = try read(dir) { return existing }
        let made = Self.generate()
        try write(made, dir)
        // Another start may have written its own first: the file's is the one.
        return try read(dir) ?? made
    }

    /// Opens `…/dledger`, creating it (and the config folder's last component) with mode 0700.
    private func openFolder() throws(RPCSecretError) -> Int32 {
        let slash = folder.lastIndex(of: "/")!
        let base = folder[..<slash].isEmpty ? "/" : String(folder[..<slash])
        if mkdir(base, 0o700) != 0 && errno != EEXIST { throw RPCSecretError.system("cannot create \(base)") }
        let parent = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard parent >= 0 else { throw RPCSecretError.system("cannot open \(base)") }
        defer { close(parent) }
        if mkdirat(parent, "dledger", 0o700) != 0 && errno != EEXIST {
            throw RPCSecretError.system("cannot create \(folder)")
        }
        let dir = openat(parent, "dledger", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dir >= 0 else {
            if errno == ELOOP || errno == ENOTDIR {
                throw RPCSecretError("\(folder) is a symbolic link or not a folder: refusing to use it")
            }
            throw RPCSecretError.system("cannot open \(folder)")
        }
        var info = stat()
        guard fstat(dir, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o022 == 0 else {
            close(dir)
            throw RPCSecretError(
                "\(folder) belongs to another user or others may write to it: refusing to use it")
        }
        return dir
    }

    /// The secret in the file, nil when there is no file.
    private func read(_ dir: Int32) throws(RPCSecretError) -> String? {
        let fd = openat(dir, Self.fileName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw RPCSecretError("\(path) is a symbolic link: refusing to use it") }
            throw RPCSecretError.system("cannot open \(path)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw RPCSecretError("\(path) is not a regular file: refusing to use it")
        }
        guard info.st_uid == geteuid() else {
            throw RPCSecretError("\(path) belongs to another user: refusing to use it")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw RPCSecretError(
                "\(path) may be read by others: 'chmod 600 \(path)', or remove it for a new one")
        }
        var bytes = [UInt8](repeating: 0, count: Self.maxLength + 2)
        let n = Glibc.read(fd, &bytes, bytes.count)
        guard n >= 0 else { throw RPCSecretError.system("cannot read \(path)") }
        var text = bytes[0..<n]
        while let last = text.last, last == 0x0A || last == 0x0D { text.removeLast() }
        guard !text.isEmpty, text.count <= Self.maxLength, text.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw RPCSecretError(
                "\(path) holds no usable secret (one line of printable characters): remove it for a new one")
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Writes `secret` as the file, whole or not at all: a new file (0600, never a link followed) linked to
    /// the name only if the name is free.
    private func write(_ secret: String, _ dir: Int32) throws(RPCSecretError) {
        let temporary = Self.fileName + ".new-\(getpid())-" + Self.generate().prefix(8)
        let fd = openat(dir, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw RPCSecretError.system("cannot create \(folder)/\(temporary)") }
        defer { unlinkat(dir, temporary, 0) }
        let bytes = Array((secret + "\n").utf8)
        let written = Glibc.write(fd, bytes, bytes.count)
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced else { throw RPCSecretError.system("cannot write \(path)") }
        if linkat(dir, temporary, dir, Self.fileName, 0) != 0 && errno != EEXIST {
            throw RPCSecretError.system("cannot create \(path)")
        }
        fsync(dir)
    }

    /// 24 bytes from the kernel's CSPRNG (`SystemRandomNumberGenerator` is `getrandom(2)` on Linux), base64url
    /// without padding: 32 characters, 192 bits.
    static func generate() -> String {
        var random = SystemRandomNumberGenerator()
        return base64URL((0..<24).map { _ in random.next() as UInt8 })
    }

    /// `bytes` in base64url (RFC 4648 §5) without padding.
    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The AriaNg address that sets this server as its RPC (`#!/settings/rpc/set/ws/<host>/<port>/jsonrpc/<secret>`,
    /// the secret in base64url as AriaNg reads it), after `base`, the address AriaNg is served from.
    public static func ariaNgLink(base: String, port: Int, secret: String) -> String {
        var start = base
        while start.hasSuffix("/") { start.removeLast() }
        return start + "/#!/settings/rpc/set/ws/127.0.0.1/\(port)/jsonrpc/" + base64URL(Array(secret.utf8))
    }
}

/// Why the RPC secret could not be read or made.
public struct RPCSecretError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }

    static func system(_ what: String) -> RPCSecretError {
        RPCSecretError("\(what): \(String(cString: strerror(errno)))")
    }
}
