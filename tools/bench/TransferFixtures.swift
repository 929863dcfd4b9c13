import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The served files, generated once with random content: one big file and many small ones, with their sizes
/// and SHA-256 (by `sha256sum`) to check every download against.
struct TransferFixtures {
    /// The directory nginx serves.
    let root: String
    let bigName: String
    let bigSize: Int64
    let smallNames: [String]
    let smallSize: Int64
    /// The file the throttling server serves (`slow.bin`, absent when its size is 0).
    let slowName = "slow.bin"
    let slowSize: Int64
    /// SHA-256 of every served file, keyed by its path relative to `root` ("big.bin", "small/f000.bin").
    let digests: [String: String]

    /// Generates `root/big.bin` and `root/small/f000.bin…` and hashes them.
    static func make(
        root: String, bigBytes: Int64, smallCount: Int, smallBytes: Int64, slowBytes: Int64, scratch: String
    )
        throws
        -> TransferFixtures
    {
        try FileManager.default.createDirectory(atPath: root + "/small", withIntermediateDirectories: true)
        var generator = SplitMix(seed: UInt64(TransferProcess.now() * 1e9))
        try write(root + "/big.bin", bytes: bigBytes, with: &generator)
        let names = (0..<smallCount).map { String(format: "f%03d.bin", $0) }
        for name in names {
            try write(root + "/small/" + name, bytes: smallBytes, with: &generator)
        }
        if slowBytes > 0 { try write(root + "/slow.bin", bytes: slowBytes, with: &generator) }
        let relative = ["big.bin"] + names.map { "small/" + $0 } + (slowBytes > 0 ? ["slow.bin"] : [])
        let byPath = try TransferProcess.sha256(of: relative.map { root + "/" + $0 }, scratch: scratch)
        var digests: [String: String] = [:]
        for path in relative {
            guard let digest = byPath[root + "/" + path] else {
                throw TransferBenchError("no digest of \(path)")
            }
            digests[path] = digest
        }
        return TransferFixtures(
            root: root, bigName: "big.bin", bigSize: bigBytes, smallNames: names, smallSize: smallBytes,
            slowSize: slowBytes, digests: digests)
    }

    /// Checks that the output at `printed` gives each of `paths` (relative to `root`) its served SHA-256, in
    /// `sha256sum`'s form: that a floor's hash covered every byte.
    func verifyDigests(printed: String, of paths: [String]) throws {
        guard !paths.isEmpty else { return }
        let text = try String(contentsOfFile: printed, encoding: .utf8)
        var found: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            found[String(parts[1].drop { $0 == " " })] = String(parts[0])
        }
        for path in paths where found[root + "/" + path] != digests[path] {
            throw TransferBenchError(
                "\(path): the digest printed beside the peer differs from the served file's")
        }
    }

    /// Checks that `directory` holds exactly `expected` (names → source path relative to `root`), each with the
    /// source's size and SHA-256. Hidden entries (a client's bookkeeping, like `.dledger`) are ignored.
    func verify(directory: String, expected: [String: String], scratch: String) throws {
        let found = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            !$0.hasPrefix(".")
        }
        let extra = Set(found).subtracting(expected.keys)
        guard extra.isEmpty else { throw TransferBenchError("unexpected files: \(extra.sorted().prefix(5))") }
        for (name, source) in expected {
            let size = Self.fileSize(directory + "/" + name)
            let want = source == bigName ? bigSize : source == slowName ? slowSize : smallSize
            guard size == want else { throw TransferBenchError("\(name): \(size) bytes, expected \(want)") }
        }
        let actual = try TransferProcess.sha256(
            of: expected.keys.map { directory + "/" + $0 }, scratch: scratch)
        for (name, source) in expected where actual[directory + "/" + name] != digests[source] {
            throw TransferBenchError("\(name): SHA-256 differs from the served file")
        }
    }

    private static func write(_ path: String, bytes: Int64, with generator: inout SplitMix) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TransferBenchError("cannot create \(path)") }
        defer { close(fd) }
        let block = 1 << 20
        let buffer = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: block / 8)
        defer { buffer.deallocate() }
        var left = bytes
        while left > 0 {
            for i in buffer.indices { buffer[i] = generator.next() }
            let count = Int(min(Int64(block), left))
            guard Glibc.write(fd, buffer.baseAddress, count) == count else {
                throw TransferBenchError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            left -= Int64(count)
        }
    }

    /// The size of a regular file, -1 when it is missing or not regular.
    static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return -1 }
        return Int64(info.st_size)
    }

    /// SplitMix64: fast, incompressible enough that no layer can shortcut the bytes.
    private struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
