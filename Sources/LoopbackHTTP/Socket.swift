import Glibc

/// One open socket descriptor, closed when the last reference goes away.
///
/// Methods are plain system calls, safe from any thread; `shutdown()` is how another thread interrupts a
/// blocked `send` or `recv` without the race of closing a descriptor number that may be reused.
final class Socket: Sendable {
    let fd: Int32

    init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    /// Sends all of `bytes`; false when the peer is gone or the socket was shut down.
    func sendAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    /// Sends all of `bytes`; false when the peer is gone or the socket was shut down.
    func sendAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { sendAll($0) }
    }

    /// Receives into `buffer`: the count, 0 at end of stream, -1 on error.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            return count
        }
    }

    /// Ends both directions: wakes any thread blocked on this socket.
    func shutdownBoth() {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Sends FIN after what was written, so the client sees a clean end of stream rather than a reset.
    func shutdownWrite() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Sets an integer socket option, ignoring failure (every option used here is an optimisation).
    func set(level: Int32, option: Int32, to value: Int32) {
        var value = value
        _ = setsockopt(fd, level, option, &value, socklen_t(MemoryLayout<Int32>.size))
    }
}
