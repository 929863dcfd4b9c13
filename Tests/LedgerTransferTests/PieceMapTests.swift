import Testing

@testable import LedgerTransfer

/// The piece map: merging, holes, and reading back only what we would have written.
@Suite struct PieceMapTests {
    @Test func rangesMergeAndTheHolesAreTheRest() {
        var map = PieceMap(size: 100)
        map.add(10..<20)
        map.add(40..<50)
        map.add(20..<30)
        map.add(45..<60)
        map.add(90..<200)
        #expect(map.done == [10..<30, 40..<60, 90..<100])
        #expect(map.missing == [0..<10, 30..<40, 60..<90])
        #expect(map.doneBytes == 50)
        #expect(map.prefix == 0)
        map.add(0..<10)
        map.add(25..<95)
        #expect(map.done == [0..<100])
        #expect(map.isComplete)
    }

    @Test func aMapReadsBackAsWrittenAndIsCutToTheFile() {
        var map = PieceMap(size: 1_000, prefix: 100)
        map.add(300..<400)
        map.add(800..<1_000)
        #expect(PieceMap.decode(map.encoded(), fileSize: 1_000) == map)
        let cut = PieceMap.decode(map.encoded(), fileSize: 350)
        #expect(cut?.done == [0..<100, 300..<350])
    }

    @Test func aMapThatIsNotOursIsRefused() {
        let bad = [
            "", "dledger-pieces 2\n10\n", "dledger-pieces 1\n0\n", "dledger-pieces 1\n10\n0-5\n3-8\n",
            "dledger-pieces 1\n10\n5-3\n", "dledger-pieces 1\n10\n0-11\n", "dledger-pieces 1\n10\n0-5",
            "dledger-pieces 1\n10\n-1-5\n", "dledger-pieces 1\n10\n 0-5\n",
            "dledger-pieces 1\n99999999999999999999\n",
            "dledger-pieces 1\n10\n4-6\n0-2\n", "dledger-pieces 1\n10\n0-5\n5-8\n",
        ]
        for text in bad {
            #expect(PieceMap.decode(Array(text.utf8), fileSize: 10) == nil, "\(text)")
        }
        let many = "dledger-pieces 1\n100000\n" + (0..<600).map { "\($0 * 10)-\($0 * 10 + 5)\n" }.joined()
        #expect(PieceMap.decode(Array(many.utf8), fileSize: 100_000) == nil)
    }
}
