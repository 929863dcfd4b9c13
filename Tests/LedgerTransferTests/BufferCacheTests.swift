import CBufferCache
import Foundation
import Testing

@testable import LedgerTransfer

/// The allocator libcurl is given: large freed blocks are reused for allocations of about their size, small ones
/// and far larger requests go to the C library.
@Suite(.serialized) struct BufferCacheTests {
    @Test func aFreedReceiveBufferIsReusedForTheNextTransfer() throws {
        // curl's receive buffer (CURLOPT_BUFFERSIZE and one byte). Blocks of that size that earlier transfers of this
        // process freed may fill the cache already: then `first` goes back to the C library, and the next
        // allocation takes one of them, which is reuse all the same.
        let size = TransferLoop.receiveBuffer + 1
        let first = try #require(dl_cache_malloc(size))
        memset(first, 0xAB, size)
        dl_cache_free(first)
        let before = dl_cache_reused()
        let second = try #require(dl_cache_malloc(size))
        #expect(dl_cache_reused() >= before + 1)
        // Any cached block of the right size will do (curl threads may have freed others meanwhile); it is usable
        // whole.
        memset(second, 0xCD, size)
        dl_cache_free(second)
    }

    @Test func smallBlocksAndFarLargerRequestsAreNotServedFromTheCache() throws {
        let small = try #require(dl_cache_malloc(1024))
        dl_cache_free(small)
        let big = try #require(dl_cache_malloc(DL_CACHED_BLOCK_MIN))
        dl_cache_free(big)
        let before = dl_cache_reused()
        // Four times the largest block anything here caches (curl's receive buffers, freed by earlier transfers of
        // this process, may be cached beside the small one): taking one would not fit.
        let largest = max(DL_CACHED_BLOCK_MIN, TransferLoop.receiveBuffer + 1)
        let larger = try #require(dl_cache_malloc(4 * largest))
        let smaller = try #require(dl_cache_malloc(100))
        #expect(dl_cache_reused() == before)
        dl_cache_free(larger)
        dl_cache_free(smaller)
        // realloc, strdup and calloc are the C library's, and their blocks go back through the same free.
        let text = try #require(dl_cache_strdup("DownloadLedger"))
        #expect(String(cString: text) == "DownloadLedger")
        dl_cache_free(text)
        let zeroed = try #require(dl_cache_calloc(16, 8)).assumingMemoryBound(to: UInt8.self)
        #expect((0..<128).allSatisfy { zeroed[$0] == 0 })
        let grown = try #require(dl_cache_realloc(zeroed, 256 * 1024))
        dl_cache_free(grown)
    }
}
