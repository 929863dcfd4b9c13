extension Validation {
    /// Whether `path` is a download folder in the one form a ledger keeps: absolute, under 4096 bytes, no control
    /// character, and no empty, `.` or `..` part (so no `//` and no trailing slash; `/` alone is one). The
    /// downloader uses such a folder as it is; anything else it would refuse (`FileNaming.isSafeDirectory`), so
    /// the ledger never takes it.
    ///
    /// ```swift
    /// Validation.isNormalDirectory("/home/me/Downloads")    // true
    /// Validation.isNormalDirectory("/home/me//Downloads/")  // false
    /// Validation.isNormalDirectory("Downloads")             // false
    /// ```
    /// - Complexity: O(length).
    public static func isNormalDirectory(_ path: String) -> Bool {
        guard path.hasPrefix("/"), path.utf8.count < 4096 else { return false }
        guard !path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return false
        }
        if path == "/" { return true }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
            !$0.isEmpty && $0 != "." && $0 != ".."
        }
    }
}
