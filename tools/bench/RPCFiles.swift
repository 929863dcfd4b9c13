import LoopbackHTTP

/// What the servers of `ledger-bench rpc` and `rpc-abuse` download, from one LoopbackHTTP: `active` files of 1 GiB
/// sent at `rate` bytes/s each (still running when a window ends, and their sum known), then `waiting` files of
/// 4 KiB that stay queued behind them.
struct RPCFiles {
    let server: LoopbackServer
    /// The active files' URLs, then the waiting ones', in the order the servers' lists hold them.
    let urls: [String]

    init(active: Int, rate: Int, waiting: Int) throws {
        server = try LoopbackServer()
        var throttled = Faults()
        throttled.throttleBytesPerSecond = rate
        var urls: [String] = []
        for i in 0..<active {
            server.serve("/active-\(i).bin", Resource(size: 1 << 30, seed: UInt64(i + 1), faults: throttled))
            urls.append(server.url("/active-\(i).bin"))
        }
        for i in 0..<waiting {
            server.serve("/waiting-\(i).bin", Resource(size: 4096, seed: UInt64(1000 + i)))
            urls.append(server.url("/waiting-\(i).bin"))
        }
        self.urls = urls
    }

    func stop() {
        server.stop()
    }
}
