import CSHA256
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `ledger-bench hash-beside [--log FILE] FILE... -- COMMAND...`: runs COMMAND (a peer's download) and, while it
/// runs, hashes FILE... (the same bytes, read from the served copies) with the SHA-256 ours runs on every
/// download: two files side by side where the CPU has the SHA extensions, in 256 KiB chunks, as ours' hasher
/// takes them. Prints each file's digest ("DIGEST  FILE", as sha256sum) so the benchmark can check every byte was
/// hashed, and exits with COMMAND's status once both are done.
///
/// Its wall time is a floor for any client that does the peer's work and also hashes every byte on this machine:
/// the hash needs a core beside the peer and the server (issue 24 §3).
enum TransferHashBeside {
    static let usage = "usage: ledger-bench hash-beside [--log FILE] [FILE...] -- COMMAND [ARG...]"

    static func run(arguments: [String]) -> Int32 {
        var rest = arguments[...]
        var log = "/dev/null"
        if rest.first == "--log" {
            rest.removeFirst()
            guard let path = rest.popFirst() else { return fail(usage) }
            log = path
        }
        guard let dashes = rest.firstIndex(of: "--"), dashes + 1 < rest.endIndex
        else {
            return fail(usage)
        }
        let files = Array(rest[..<dashes])
        let command = Array(rest[(dashes + 1)...])
        let pid: pid_t
        do {
            pid = try TransferProcess.spawn(command, log: log)
        } catch {
            return fail("\(error)")
        }
        let digests = hash(files)
        let (code, _) = TransferProcess.reap(pid)
        guard let digests else { return fail("cannot read the files to hash") }
        for (digest, file) in zip(digests, files) { print("\(digest)  \(file)") }
        return code
    }

    /// The SHA-256 of each file, in order, or nil when one cannot be read.
    static func hash(_ files: [String]) -> [String]? {
        var digests: [String] = []
        var index = 0
        while index < files.count {
            let pair = Array(files[index..<min(index + 2, files.count)])
            guard let done = hashTogether(pair) else { return nil }
            digests += done
            index += pair.count
        }
        return digests
    }

    private static let chunk = 256 << 10

    /// One or two files, chunk by chunk, the chunks of two files hashed side by side.
    private static func hashTogether(_ files: [String]) -> [String]? {
        let descriptors = files.map { Glibc.open($0, O_RDONLY | O_CLOEXEC) }
        defer { for fd in descriptors where fd >= 0 { close(fd) } }
        guard descriptors.allSatisfy({ $0 >= 0 }) else { return nil }
        let buffers = files.map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 64)
        }
        defer { for buffer in buffers { buffer.deallocate() } }
        let contexts = files.map { _ in UnsafeMutablePointer<dl_sha256_ctx>.allocate(capacity: 1) }
        defer { for context in contexts { context.deallocate() } }
        for context in contexts {
            context.initialize(to: dl_sha256_ctx())
            dl_sha256_init(context)
        }
        var reading = Array(repeating: true, count: files.count)
        while reading.contains(true) {
            var counts = Array(repeating: 0, count: files.count)
            for i in files.indices where reading[i] {
                guard let n = readFull(descriptors[i], buffers[i]) else { return nil }
                counts[i] = n
                if n < chunk { reading[i] = false }
            }
            if files.count == 2 {
                dl_sha256_update2(
                    contexts[0], buffers[0].baseAddress, counts[0], contexts[1], buffers[1].baseAddress,
                    counts[1])
            } else {
                dl_sha256_update(contexts[0], buffers[0].baseAddress, counts[0])
            }
        }
        return contexts.map { context in
            var digest = [UInt8](repeating: 0, count: 32)
            dl_sha256_final(context, &digest)
            return digest.map { String(format: "%02x", $0) }.joined()
        }
    }

    /// Reads until `buffer` is full or the file ends; the bytes read, or nil on an error.
    private static func readFull(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int? {
        var filled = 0
        while filled < buffer.count {
            let n = read(fd, buffer.baseAddress! + filled, buffer.count - filled)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            filled += n
        }
        return filled
    }

    private static func fail(_ message: String) -> Int32 {
        print("ledger-bench hash-beside: \(message)")
        return 64
    }
}
