import Foundation
import Glibc
import TestSupport

extension RawHTTPClient {
    /// One text frame, masked or not, with the length in the form a client picks (7-bit, 16-bit or 64-bit).
    static func frame(_ text: String, masked: Bool, lengthBytes: Int? = nil) -> [UInt8] {
        let payload = Array(text.utf8)
        let form = lengthBytes ?? (payload.count < 126 ? 0 : payload.count < 65536 ? 2 : 8)
        let bit: UInt8 = masked ? 0x80 : 0
        var frame: [UInt8] = [0x81]
        switch form {
        case 0: frame.append(bit | UInt8(payload.count))
        case 2: frame += [bit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            frame.append(bit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                frame.append(UInt8((payload.count >> shift) & 0xFF))
            }
        }
        guard masked else { return frame + payload }
        let key: [UInt8] = [0x9A, 0x0B, 0x3C, 0xD4]
        return frame + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    /// Sends `bytes` one TCP write per byte, so the server reads headers split across reads.
    func sendByteByByte(_ bytes: [UInt8]) throws {
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        for byte in bytes {
            try send([byte])
            usleep(1000)
        }
    }

    /// Whether the server closes the connection within `seconds` (end of stream or a reset), and what it sent
    /// before that.
    func closes(within seconds: Double) -> (closed: Bool, received: [UInt8]) {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var probe = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&probe, 1, 50) > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n == 0 { return (true, received) }
            if n < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return (true, received)
            }
            received += chunk[0..<n]
        }
        return (false, received)
    }
}
