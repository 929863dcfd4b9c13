import CCurl

/// Owns one `CURL` easy handle, its request header list and its error buffer.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The errno of the last socket(2) curl asked for that failed (0: none).
    private let socketErrno: UnsafeMutablePointer<Int32>

    init() throws(TransferError) {
        guard let handle = curl_easy_init() else { throw .curl("curl_easy_init failed") }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        socketErrno = .allocate(capacity: 1)
        socketErrno.initialize(to: 0)
        ccurl_setopt_open_socket(handle, socketErrno)
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
        socketErrno.deallocate()
    }

    func set(_ option: CURLoption, _ value: Int) {
        ccurl_setopt_long(handle, option, value)
    }

    func set(_ option: CURLoption, offset value: Int64) {
        ccurl_setopt_off(handle, option, curl_off_t(value))
    }

    /// curl copies string options, so the argument need not outlive the call.
    func set(_ option: CURLoption, _ value: String) {
        ccurl_setopt_string(handle, option, value)
    }

    func set(_ option: CURLoption, callback: ccurl_data_callback) {
        ccurl_setopt_data_callback(handle, option, callback)
    }

    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) {
        ccurl_setopt_pointer(handle, option, pointer)
    }

    /// Replaces the extra request headers (`"Name: value"` lines).
    func setHeaders(_ lines: [String]) {
        curl_slist_free_all(headerList)
        headerList = nil
        for line in lines {
            headerList = curl_slist_append(headerList, line)
        }
        ccurl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
    }

    /// The `errno` of a socket or connect of this transfer that failed, 0 if none: a socket(2) that failed (curl
    /// does not report that errno itself), else curl's `CURLINFO_OS_ERRNO` of a connect.
    var osErrno: Int32 {
        if socketErrno.pointee != 0 { return socketErrno.pointee }
        var code = 0
        ccurl_getinfo_long(handle, CURLINFO_OS_ERRNO, &code)
        return Int32(truncatingIfNeeded: code)
    }

    var responseCode: Int {
        var code = 0
        ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    var effectiveURL: String? {
        var url: UnsafeMutablePointer<CChar>?
        guard ccurl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &url) == CURLE_OK, let url else {
            return nil
        }
        return String(cString: url)
    }

    /// curl's detailed message for the last error, else its generic text for `code`.
    func message(for code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }
}
