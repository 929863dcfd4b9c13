import Foundation
import LoopbackHTTP

/// The throttling server of the slow workload: LoopbackHTTP on 127.0.0.1 serving the fixtures' `slow.bin`, each
/// response (so each connection) paced at `rate` bytes per second, as file hosts and busy mirrors cap a
/// connection. Ranges are served, with an ETag.
final class TransferSlowServer {
    private let server: LoopbackServer
    let url: String

    init(fixtures: TransferFixtures, rate: Int) throws {
        server = try LoopbackServer()
        var faults = Faults()
        faults.throttleBytesPerSecond = rate
        if fixtures.slowSize > 0 {
            let bytes = try [UInt8](
                Data(contentsOf: URL(fileURLWithPath: fixtures.root + "/" + fixtures.slowName)))
            server.serve("/" + fixtures.slowName, Resource(bytes: bytes, etag: "\"slow-1\"", faults: faults))
        }
        url = server.url("/" + fixtures.slowName)
    }

    func stop() {
        server.stop()
    }
}
