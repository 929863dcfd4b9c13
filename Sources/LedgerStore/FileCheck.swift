#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// File-system questions asked before SQLite touches a file.
enum FileCheck {
    /// Whether something exists at `path` (without following it into SQLite).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }
}
