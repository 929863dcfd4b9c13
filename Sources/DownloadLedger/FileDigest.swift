import CCrypto
import Foundation

/// SHA-256 of files on disk, for `verify --checksums`.
enum FileDigest {
    /// Lowercase hex SHA-256 of the file's bytes, read in 1 MiB blocks.
    static func sha256(path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw LedgerError.fileSystem("cannot read \(path)")
        }
        defer { try? handle.close() }
        return try sha256(handle)
    }

    /// Lowercase hex SHA-256 of what an open file holds from its current offset on; nil when it cannot be read.
    /// The descriptor stays open.
    static func sha256(fd: Int32) -> String? {
        try? sha256(FileHandle(fileDescriptor: fd, closeOnDealloc: false))
    }

    /// A SHA-256 fed piece by piece (an encoding hashed as it is written, never held whole).
    final class Stream {
        private let context: OpaquePointer

        init() {
            guard let context = EVP_MD_CTX_new() else { preconditionFailure("OpenSSL: no digest context") }
            self.context = context
            EVP_DigestInit_ex(context, EVP_sha256(), nil)
        }

        deinit { EVP_MD_CTX_free(context) }

        func update(_ piece: UnsafeRawBufferPointer) {
            EVP_DigestUpdate(context, piece.baseAddress, piece.count)
        }

        /// The digest of everything fed so far; the stream is spent.
        func finish() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: 32)
            var length: UInt32 = 0
            EVP_DigestFinal_ex(context, &digest, &length)
            return digest
        }
    }

    private static func sha256(_ handle: FileHandle) throws -> String {
        guard let ctx = EVP_MD_CTX_new() else { throw LedgerError.fileSystem("no digest context") }
        defer { EVP_MD_CTX_free(ctx) }
        EVP_DigestInit_ex(ctx, EVP_sha256(), nil)
        while let block = try handle.read(upToCount: 1 << 20), !block.isEmpty {
            block.withUnsafeBytes { _ = EVP_DigestUpdate(ctx, $0.baseAddress, $0.count) }
        }
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(ctx, &digest, &length)
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}
