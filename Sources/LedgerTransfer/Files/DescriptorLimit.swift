import Glibc

/// The process's file descriptors, as transfers need them: a partial file and its reader, a socket per connection,
/// and the folders a finished file is placed through.
///
/// ``raise()`` lifts the soft `RLIMIT_NOFILE` to the hard one (the default soft limit, 1024, is far below what a
/// download manager with thousands of waiting tasks and `limit 0` wants); ``transferCapacity(connections:running:)``
/// tells a scheduler how many transfers may run so that none fails for lack of a descriptor.
public enum DescriptorLimit {
    /// Descriptors a transfer of `connections` connections may hold at once: the partial file, the hash
    /// worker's reader, a socket per connection, and the download folder with its two hidden folders while the
    /// file is placed.
    public static func cost(connections: Int) -> Int { 5 + max(connections, 1) }

    /// Descriptors kept free for everything else (the ledger's SQLite files and lock, an RPC server's clients,
    /// curl's own): 32, plus a tenth of the limit.
    public static func margin(limit: Int) -> Int { 32 + limit / 10 }

    /// Raises the soft limit to the hard one (bounded by what the kernel takes, `/proc/sys/fs/nr_open`); returns
    /// the soft limit in force afterwards. Idempotent; it never lowers a limit.
    @discardableResult
    public static func raise() -> Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 1024 }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max == rlim_t.max ? 1 << 20 : limits.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
        }
        return limits.rlim_cur == rlim_t.max ? Int(Int32.max) : Int(limits.rlim_cur)
    }

    /// The soft limit in force.
    public static var limit: Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 1024 }
        return limits.rlim_cur == rlim_t.max ? Int(Int32.max) : Int(limits.rlim_cur)
    }

    /// Descriptors open now (the entries of `/proc/self/fd`), nil where that cannot be read.
    public static func inUse() -> Int? {
        guard let folder = opendir("/proc/self/fd") else { return nil }
        defer { closedir(folder) }
        var count = -1  // the descriptor opendir itself holds
        while let entry = readdir(folder) {
            let first = withUnsafeBytes(of: entry.pointee.d_name) { $0.first ?? 0 }
            if first != UInt8(ascii: ".") { count += 1 }
        }
        return max(count, 0)
    }

    /// Descriptors free now beyond the margin (negative when fewer are free).
    public static func free() -> Int {
        let limit = Self.limit
        return limit - (inUse() ?? limit / 2) - margin(limit: limit)
    }

    /// How many transfers may run when `running` (of `connections` connections each) run now: those, and as many
    /// more as the free descriptors pay for beyond the margin. At least one when none runs, so that work goes on
    /// under any limit (a lack of descriptors is then waited out, never a failure).
    public static func transferCapacity(connections: Int, running: Int) -> Int {
        transferCapacity(connections: connections, running: running, free: free())
    }

    /// ``transferCapacity(connections:running:)`` given `free` descriptors beyond the margin.
    public static func transferCapacity(connections: Int, running: Int, free: Int) -> Int {
        max(running + max(free, 0) / cost(connections: connections), 1)
    }
}
