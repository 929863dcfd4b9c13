import LoopbackHTTP

extension LoopbackServer {
    /// Serves `size` bytes of `seed`'s data at `path`, at 100 kB/s: a file that keeps a run busy for a known time
    /// (`size` / 100,000 seconds), so a test can stop a database, or look at a screen, while it downloads.
    func servePaced(_ path: String, size: Int64, seed: UInt64, etag: String? = nil) {
        serve(
            path,
            Resource(size: size, seed: seed, etag: etag, faults: Faults(throttleBytesPerSecond: 100_000)))
    }
}
