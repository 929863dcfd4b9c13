#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
/* A missing header names the Debian package that provides it (tools/bootstrap installs it). */
#if !__has_include(<curl/curl.h>)
#error "curl/curl.h not found: install the Debian package libcurl4-openssl-dev (or run tools/bootstrap)"
#endif
#include <curl/curl.h>

/* curl_easy_setopt and curl_multi_setopt are variadic; Swift calls these typed wrappers. */
static inline CURLcode ccurl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
typedef size_t (*ccurl_data_callback)(char *, size_t, size_t, void *);
static inline CURLcode ccurl_setopt_data_callback(CURL *h, CURLoption o, ccurl_data_callback v) { return curl_easy_setopt(h, o, v); }
typedef int (*ccurl_xferinfo_callback)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t);
static inline CURLcode ccurl_setopt_xferinfo_callback(CURL *h, CURLoption o, ccurl_xferinfo_callback v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode ccurlm_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

/* LedgerTransfer: curl's sockets, opened here so that a socket(2) that fails leaves its errno where the transfer
   can read it (curl 7.88 reports an EMFILE there only as "Couldn't connect to server"), and close-on-exec. */
#include <errno.h>
#include <sys/socket.h>
static inline curl_socket_t ccurl_open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)purpose;
    curl_socket_t s = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (clientp) *(int *)clientp = s == CURL_SOCKET_BAD ? errno : 0;
    return s;
}
static inline CURLcode ccurl_setopt_open_socket(CURL *h, int *failedErrno) {
    CURLcode c = curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, ccurl_open_socket);
    return c != CURLE_OK ? c : curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, (void *)failedErrno);
}

/* LedgerTransfer: rename without replacing (renameat2 RENAME_NOREPLACE), for file systems without link(2).
   glibc only declares renameat2 under _GNU_SOURCE, so go through syscall(2). */
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
static inline int ccurl_rename_noreplace(const char *from, const char *to) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1u /* RENAME_NOREPLACE */);
}
/* The same relative to open folders (DownloadFolder: nothing resolved through a path that may cross a link). */
static inline int ccurl_renameat_noreplace(int fromDir, const char *from, int toDir, const char *to) {
    return (int)syscall(SYS_renameat2, fromDir, from, toDir, to, 1u /* RENAME_NOREPLACE */);
}

/* LedgerTransfer: a partial file's mark (the task generation and validator it was written under) as an extended
   attribute that travels with the file. fsetxattr/getxattr are not in Swift's Glibc module. */
#include <sys/xattr.h>
static inline int ccurl_fsetxattr(int fd, const char *name, const void *value, size_t size) {
    return fsetxattr(fd, name, value, size, 0);
}
static inline long ccurl_fgetxattr(int fd, const char *name, void *value, size_t size) {
    return (long)fgetxattr(fd, name, value, size);
}
static inline int ccurl_fremovexattr(int fd, const char *name) {
    return fremovexattr(fd, name);
}

/* LedgerTransfer: reserve blocks past the end of a file without changing its size (fallocate with
   FALLOC_FL_KEEP_SIZE), so appends land in allocated blocks. Declared by glibc only under _GNU_SOURCE. */
static inline int ccurl_reserve(int fd, long long offset, long long length) {
    return (int)syscall(SYS_fallocate, fd, 1 /* FALLOC_FL_KEEP_SIZE */, (off_t)offset, (off_t)length);
}
#endif
