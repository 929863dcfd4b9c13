import Foundation
import LedgerTransfer
import LoopbackHTTP
import Testing

/// TLS verification is on by default: a self-signed certificate (served by `openssl s_server`) fails the transfer
/// as `.tls`, not retryable, with nothing written; the same download from the same server succeeds once
/// verification is turned off, so the failure was the verification and nothing else.
@Suite(
    .enabled(if: OpenSSLServer.isAvailable, "needs the openssl command line tool (apt-get install openssl)"))
struct TLSTests {
    @Test func aSelfSignedCertificateFailsByDefaultAndPassesOnlyWithVerificationOff() async throws {
        let body = Body.generatedBytes(seed: 3, in: 0..<200_000)
        let server = try await OpenSSLServer.start(files: ["report.bin": body])
        defer { server.stop() }
        #expect(TransferConfig().verifyTLS)

        let verifying = try Harness(config: TransferConfig())
        defer { verifying.close() }
        let refused = await verifying.run(
            TransferRequest(id: 1, url: server.url("report.bin"), directory: verifying.directory))
        guard case .failed(_, .tls(let message), let retryable, let bytes)? = refused else {
            Issue.record("with verification on, ended with \(String(describing: refused))")
            return
        }
        #expect(message.lowercased().contains("certificate"), "not a verification failure: \(message)")
        #expect(!retryable)
        #expect(bytes == 0)
        #expect(verifying.events.startedAttempts(1) == [1])
        #expect(verifying.visibleFiles().isEmpty)
        #expect(!verifying.partialExists(1))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: verifying.root)) == ["downloads"])

        var insecure = TransferConfig()
        insecure.verifyTLS = false
        let trusting = try Harness(config: insecure)
        defer { trusting.close() }
        let accepted = await trusting.run(
            TransferRequest(id: 1, url: server.url("report.bin"), directory: trusting.directory))
        guard case .completed(_, let size, _, let name)? = accepted else {
            Issue.record("with verification off, ended with \(String(describing: accepted))")
            return
        }
        #expect(name == "report.bin")
        #expect(size == 200_000)
        #expect(trusting.holds("report.bin", body))
        #expect(trusting.visibleFiles() == ["report.bin"])
        #expect((try? FileManager.default.contentsOfDirectory(atPath: trusting.root)) == ["downloads"])
    }
}
