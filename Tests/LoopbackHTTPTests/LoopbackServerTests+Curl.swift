import Foundation
import LoopbackHTTP
import TestSupport
import Testing

/// The server against a real, independent client: /usr/bin/curl (skipped where it is missing).
extension LoopbackServerTests {
    static let curlPath = "/usr/bin/curl"
    static let hasCurl = FileManager.default.isExecutableFile(atPath: curlPath)

    /// Runs curl with `arguments`; returns its exit status and standard output.
    static func curl(_ arguments: [String]) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: curlPath)
        process.arguments = ["--silent", "--max-time", "30"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    /// A fresh directory, removed after `body`.
    static func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let directory = try TemporaryDirectory(prefix: "loopback-tests-")
        return try withExtendedLifetime(directory) { try body(URL(fileURLWithPath: directory.path)) }
    }

    @Test(.enabled(if: hasCurl)) func curlDownloadsTheWholeBody() throws {
        let server = try LoopbackServer()
        let size: Int64 = 2 * 1024 * 1024 + 5
        server.serve("/big.bin", Resource(size: size, seed: 31))
        try Self.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("big.bin")
            let result = try Self.curl(["--fail", "-o", file.path, server.url("big.bin")])
            #expect(result.status == 0)
            let data = try Data(contentsOf: file)
            #expect(Fingerprint(data) == Fingerprint(Body.generatedBytes(seed: 31, in: 0..<size)))
        }
    }

    @Test(.enabled(if: hasCurl)) func curlGetsARangeAndAChunkedBody() throws {
        let server = try LoopbackServer()
        server.serve("/r", Resource(size: 1000, seed: 32))
        server.serve("/c", Resource(size: 70_000, seed: 33, chunked: true))
        let range = try Self.curl(["--fail", "-r", "100-199", server.url("r")])
        #expect(range.status == 0)
        #expect(Fingerprint(range.output) == Fingerprint(Body.generatedBytes(seed: 32, in: 100..<200)))
        let chunked = try Self.curl(["--fail", server.url("c")])
        #expect(chunked.status == 0)
        #expect(Fingerprint(chunked.output) == Fingerprint(Body.generatedBytes(seed: 33, in: 0..<70_000)))
    }

    @Test(.enabled(if: hasCurl)) func curlFollowsARedirect() throws {
        let server = try LoopbackServer()
        server.serve("/target", Resource(text: "arrived"))
        server.serve("/start", Resource(redirect: (302, "/target")))
        let result = try Self.curl(["--fail", "-L", server.url("start")])
        #expect(result.status == 0)
        #expect(String(decoding: result.output, as: UTF8.self) == "arrived")
        #expect(server.requests("/start").count == 1)
        #expect(server.requests("/target").count == 1)
    }

    @Test(.enabled(if: hasCurl)) func curlResumesADroppedDownload() throws {
        let server = try LoopbackServer()
        let size: Int64 = 300_000
        var faults = Faults()
        faults.dropAfterBytes = 100_000
        server.serve("/d.bin", Resource(size: size, seed: 34, etag: "\"d\"", faults: faults))
        try Self.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("d.bin")
            let first = try Self.curl(["-o", file.path, server.url("d.bin")])
            #expect(first.status == 18)  // CURLE_PARTIAL_FILE
            #expect(try Data(contentsOf: file).count == 100_000)
            let second = try Self.curl(["--fail", "-C", "-", "-o", file.path, server.url("d.bin")])
            #expect(second.status == 0)
            #expect(server.requests("/d.bin").last?.range == "bytes=100000-")
            let data = try Data(contentsOf: file)
            #expect(Fingerprint(data) == Fingerprint(Body.generatedBytes(seed: 34, in: 0..<size)))
        }
    }

    @Test(.enabled(if: hasCurl)) func curlRetriesAfterInjectedFailures() throws {
        let server = try LoopbackServer()
        var faults = Faults()
        faults.failFirst = 1
        faults.failStatus = 503
        faults.retryAfter = 1
        server.serve("/flaky", Resource(text: "finally", faults: faults))
        let result = try Self.curl(["--fail", "--retry", "2", server.url("flaky")])
        #expect(result.status == 0)
        #expect(String(decoding: result.output, as: UTF8.self) == "finally")
        #expect(server.requests("/flaky").count == 2)
    }

    @Test(.enabled(if: hasCurl)) func curlSeesHeadHeaders() throws {
        let server = try LoopbackServer()
        server.serve(
            "/h",
            Resource(size: 42, seed: 1, etag: "\"h\"", contentDisposition: "attachment; filename=\"h.bin\""))
        let result = try Self.curl(["-I", server.url("h")])
        #expect(result.status == 0)
        let text = String(decoding: result.output, as: UTF8.self).lowercased()
        #expect(text.hasPrefix("http/1.1 200 ok"))
        #expect(text.contains("content-length: 42"))
        #expect(text.contains("etag: \"h\""))
        #expect(text.contains("content-disposition: attachment; filename=\"h.bin\""))
        #expect(server.requests("/h").first?.method == "HEAD")
    }
}
