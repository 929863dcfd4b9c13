import DownloadLedger
import Foundation
import Testing

@testable import LedgerRPC

/// A body is read once (`Aria2Service.read`): its calls, where it runs and how many calls it makes come from that
/// one reading, and the answer is the same as answering the bytes.
@Suite struct Aria2RequestTests {
    @Test func aBodyIsReadOnceIntoItsCalls() throws {
        let h = try RPCHarness(listen: false)
        let reads = Array(
            #"""
            [{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion"},{"id":2,"params":[]},
             {"id":3,"method":"aria2.tellActive","params":"x"},
             {"id":4,"method":"system.multicall","params":[[{"methodName":"aria2.getGlobalStat"},{"x":1}]]}]
            """#.utf8)
        let request = h.service.read(reads)
        #expect(request.refusal == nil && request.onlyReads && request.calls == 6)
        guard case .calls(let calls, batch: true) = request.content else {
            Issue.record("not a batch")
            return
        }
        #expect(calls.map(\.id) == [.int(1), .int(2), .int(3), .int(4)])
        guard case .invalid(let badParams) = calls[2].target, badParams.code == -32602,
            case .invalid(let notARequest) = calls[1].target, notARequest == .invalidRequest
        else {
            Issue.record("\(calls)")
            return
        }
        #expect(h.service.reply(to: request).bytes == h.service.reply(to: reads).bytes)
        let add = h.service.read(
            Array(#"{"id":1,"method":"system.multicall","params":[[{"methodName":"aria2.addUri"}]]}"#.utf8))
        #expect(!add.onlyReads && add.calls == 2)
        for (body, error) in [("[]", RPCError.invalidRequest), ("{", .parse), ("[[[", .parse)] {
            let refused = h.service.read(Array(body.utf8))
            #expect(refused.refusal == error && refused.onlyReads && refused.calls == 0, "\(body)")
        }
    }
}
