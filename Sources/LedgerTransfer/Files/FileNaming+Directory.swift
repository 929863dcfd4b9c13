extension FileNaming {
    /// `path` in the one form a ledger keeps a download directory in, or nil when no form of it is one
    /// (``isSafeDirectory(_:)``): repeated slashes are one, `.` parts and a trailing slash go. A `..` part is not
    /// resolved (through a link it names another folder than the text says): it makes the path unusable.
    ///
    /// ```swift
    /// FileNaming.normalizedDirectory("/tmp/x//y/")   // "/tmp/x/y"
    /// FileNaming.normalizedDirectory("/tmp/./x")     // "/tmp/x"
    /// FileNaming.normalizedDirectory("/tmp/../x")    // nil
    /// FileNaming.normalizedDirectory("x/y")          // nil: not absolute
    /// ```
    /// Every path this returns passes ``isSafeDirectory(_:)``: a folder taken in this form is never refused later.
    /// - Complexity: O(length); no copy when the path is in that form already.
    public static func normalizedDirectory(_ path: String) -> String? {
        if isSafeDirectory(path) && (path == "/" || !path.hasSuffix("/")) { return path }
        guard path.hasPrefix("/") else { return nil }
        let parts = path.split(separator: "/").filter { $0 != "." }
        let normal = "/" + parts.joined(separator: "/")
        return isSafeDirectory(normal) ? normal : nil
    }
}
