import CBufferCache
import CCurl

/// Owns one `CURLM` handle.
///
/// Only ``wakeup()`` may be called from another thread than the loop's (curl_multi_wakeup is thread-safe), which is
/// why the class is `@unchecked Sendable`.
final class CurlMulti: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    /// Initialises libcurl once per process, then creates the multi handle.
    init() throws(TransferEngineError) {
        guard Self.isReady else {
            throw TransferEngineError(message: "curl_global_init failed")
        }
        guard let handle = curl_multi_init() else {
            throw TransferEngineError(message: "curl_multi_init failed")
        }
        self.handle = handle
        // curl sizes its cache of idle connections at 4 per transfer in flight: when a burst of transfers ends before
        // the next ones are added (they come from another thread), it closed most of them, and their successors
        // paid a new connection each (14 connections for 200 files, 8 at a time). A fixed size keeps them.
        _ = ccurlm_setopt_long(handle, CURLMOPT_MAXCONNECTS, Self.idleConnections)
    }

    /// Whether libcurl is initialised: initialises it once per process (``TransferEngine/warmUp()`` asks early).
    static var isReady: Bool { globalInit == CURLE_OK }

    /// Connections kept open between transfers (curl's `CURLMOPT_MAXCONNECTS`).
    static let idleConnections = 32

    deinit {
        curl_multi_cleanup(handle)
    }

    /// libcurl allocates through ``CBufferCache``, which keeps the receive buffers of ended transfers for the next
    /// ones (fresh ones cost about 4,000 page faults per 200 transfers). When the process initialised libcurl
    /// before, curl keeps that allocator.
    private static let globalInit: CURLcode = curl_global_init_mem(
        Int(CURL_GLOBAL_DEFAULT), dl_cache_malloc, dl_cache_free, dl_cache_realloc, dl_cache_strdup,
        dl_cache_calloc)

    /// Interrupts a running `curl_multi_poll` from any thread.
    func wakeup() {
        curl_multi_wakeup(handle)
    }

    func add(_ easy: CurlEasy) -> Bool {
        curl_multi_add_handle(handle, easy.handle) == CURLM_OK
    }

    func remove(_ easy: CurlEasy) {
        curl_multi_remove_handle(handle, easy.handle)
    }

    /// Drives every transfer as far as it can go without blocking.
    func perform() {
        var running: Int32 = 0
        curl_multi_perform(handle, &running)
    }

    /// Waits for socket activity, curl's own timers, a wakeup, or at most `milliseconds`.
    func poll(milliseconds: Int32) {
        curl_multi_poll(handle, nil, 0, max(milliseconds, 0), nil)
    }

    /// The next finished transfer, if any: its easy handle and its result code.
    ///
    /// One at a time, and handled before the next is read: handling one may take other handles off the multi handle
    /// (a dropped mirror's other connections), and curl then drops their pending messages; a handle freed meanwhile
    /// may even come back at the same address for a new request, so a message read before would be handed to the
    /// wrong request (a fresh connection "failed" with another's result).
    func nextFinished() -> (easy: UnsafeMutableRawPointer, result: CURLcode)? {
        var left: Int32 = 0
        while let message = curl_multi_info_read(handle, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else {
                continue
            }
            return (easy, message.pointee.data.result)
        }
        return nil
    }
}
