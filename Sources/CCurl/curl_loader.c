/* libcurl, opened at its first use instead of when the process starts (see CCurl.h for why).
 *
 * Every curl_* function Swift calls is defined here with libcurl's own prototype and goes to libcurl's definition,
 * found once with dlsym. The definitions are hidden: they are not exported from the executable, so libcurl's calls
 * to its own functions never land here. Until libcurl could be opened, each fails the way libcurl reports a
 * failure (an error code, or NULL), and ccurl_load_error() says why. */
/* The system's headers first, outside the pragma: what they declare lives in shared libraries and must stay
   visible to the linker. Then libcurl's and ours, whose definitions below are hidden. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#pragma GCC visibility push(hidden)
#include "CCurl.h"

/* The library's name with its ABI version, as Debian's libcurl4 (the OpenSSL flavour this is built and tested
   against) installs it; the development link (libcurl.so) is only there with the -dev package. */
static const char *const library_name = "libcurl.so.4";

static struct {
    int loaded;
    char error[512];
    CURLcode (*global_init_mem)(long, curl_malloc_callback, curl_free_callback, curl_realloc_callback,
                                curl_strdup_callback, curl_calloc_callback);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_pause)(CURL *, int);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} lib;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* Resolves `name` into `*slot`; false (and the reason kept) when libcurl lacks it. */
static int resolve(void *handle, const char *name, void **slot) {
    *slot = dlsym(handle, name);
    if (*slot != NULL) return 1;
    snprintf(lib.error, sizeof lib.error, "libcurl has no %s", name);
    return 0;
}

static void load(void) {
    void *handle = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(lib.error, sizeof lib.error, "cannot load libcurl: %s (install the Debian package libcurl4)",
                 reason ? reason : "not found");
        return;
    }
    int ok = resolve(handle, "curl_global_init_mem", (void **)&lib.global_init_mem) &&
             resolve(handle, "curl_easy_init", (void **)&lib.easy_init) &&
             resolve(handle, "curl_easy_cleanup", (void **)&lib.easy_cleanup) &&
             resolve(handle, "curl_easy_pause", (void **)&lib.easy_pause) &&
             resolve(handle, "curl_easy_strerror", (void **)&lib.easy_strerror) &&
             resolve(handle, "curl_easy_setopt", (void **)&lib.easy_setopt) &&
             resolve(handle, "curl_easy_getinfo", (void **)&lib.easy_getinfo) &&
             resolve(handle, "curl_multi_init", (void **)&lib.multi_init) &&
             resolve(handle, "curl_multi_cleanup", (void **)&lib.multi_cleanup) &&
             resolve(handle, "curl_multi_add_handle", (void **)&lib.multi_add_handle) &&
             resolve(handle, "curl_multi_remove_handle", (void **)&lib.multi_remove_handle) &&
             resolve(handle, "curl_multi_perform", (void **)&lib.multi_perform) &&
             resolve(handle, "curl_multi_poll", (void **)&lib.multi_poll) &&
             resolve(handle, "curl_multi_wakeup", (void **)&lib.multi_wakeup) &&
             resolve(handle, "curl_multi_info_read", (void **)&lib.multi_info_read) &&
             resolve(handle, "curl_multi_setopt", (void **)&lib.multi_setopt) &&
             resolve(handle, "curl_slist_append", (void **)&lib.slist_append) &&
             resolve(handle, "curl_slist_free_all", (void **)&lib.slist_free_all);
    if (ok) {
        lib.error[0] = '\0';
        lib.loaded = 1;
    }
}

/* Opens libcurl once (any thread); true when every function was found. */
static int ready(void) {
    pthread_once(&load_once, load);
    return lib.loaded;
}

const char *ccurl_load_error(void) { return ready() ? NULL : lib.error; }

CURLcode curl_global_init_mem(long flags, curl_malloc_callback m, curl_free_callback f, curl_realloc_callback r,
                              curl_strdup_callback s, curl_calloc_callback c) {
    return ready() ? lib.global_init_mem(flags, m, f, r, s, c) : CURLE_FAILED_INIT;
}
CURL *curl_easy_init(void) { return ready() ? lib.easy_init() : NULL; }
void curl_easy_cleanup(CURL *h) {
    if (ready()) lib.easy_cleanup(h);
}
CURLcode curl_easy_pause(CURL *h, int mask) { return ready() ? lib.easy_pause(h, mask) : CURLE_FAILED_INIT; }
const char *curl_easy_strerror(CURLcode code) {
    return ready() ? lib.easy_strerror(code) : "libcurl could not be loaded";
}
CURLM *curl_multi_init(void) { return ready() ? lib.multi_init() : NULL; }
CURLMcode curl_multi_cleanup(CURLM *m) { return ready() ? lib.multi_cleanup(m) : CURLM_INTERNAL_ERROR; }
CURLMcode curl_multi_add_handle(CURLM *m, CURL *h) {
    return ready() ? lib.multi_add_handle(m, h) : CURLM_INTERNAL_ERROR;
}
CURLMcode curl_multi_remove_handle(CURLM *m, CURL *h) {
    return ready() ? lib.multi_remove_handle(m, h) : CURLM_INTERNAL_ERROR;
}
CURLMcode curl_multi_perform(CURLM *m, int *running) {
    return ready() ? lib.multi_perform(m, running) : CURLM_INTERNAL_ERROR;
}
CURLMcode curl_multi_poll(CURLM *m, struct curl_waitfd extra[], unsigned int count, int timeout, int *ret) {
    return ready() ? lib.multi_poll(m, extra, count, timeout, ret) : CURLM_INTERNAL_ERROR;
}
CURLMcode curl_multi_wakeup(CURLM *m) { return ready() ? lib.multi_wakeup(m) : CURLM_INTERNAL_ERROR; }
CURLMsg *curl_multi_info_read(CURLM *m, int *left) { return ready() ? lib.multi_info_read(m, left) : NULL; }
struct curl_slist *curl_slist_append(struct curl_slist *list, const char *text) {
    return ready() ? lib.slist_append(list, text) : NULL;
}
void curl_slist_free_all(struct curl_slist *list) {
    if (ready()) lib.slist_free_all(list);
}

/* The typed wrappers of the variadic functions: each passes its one argument with its own type. */
#define EASY_SETOPT(name, type)                                                                              \
    CURLcode name(CURL *h, CURLoption o, type v) { return ready() ? lib.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
EASY_SETOPT(ccurl_setopt_long, long)
EASY_SETOPT(ccurl_setopt_off, curl_off_t)
EASY_SETOPT(ccurl_setopt_string, const char *)
EASY_SETOPT(ccurl_setopt_pointer, void *)
EASY_SETOPT(ccurl_setopt_slist, struct curl_slist *)
EASY_SETOPT(ccurl_setopt_data_callback, ccurl_data_callback)
EASY_SETOPT(ccurl_setopt_xferinfo_callback, ccurl_xferinfo_callback)
EASY_SETOPT(ccurl_setopt_open_socket_callback, ccurl_open_socket_callback)

#define EASY_GETINFO(name, type)                                                                             \
    CURLcode name(CURL *h, CURLINFO i, type *v) { return ready() ? lib.easy_getinfo(h, i, v) : CURLE_FAILED_INIT; }
EASY_GETINFO(ccurl_getinfo_long, long)
EASY_GETINFO(ccurl_getinfo_off, curl_off_t)
EASY_GETINFO(ccurl_getinfo_string, char *)
EASY_GETINFO(ccurl_getinfo_pointer, void *)

CURLMcode ccurlm_setopt_long(CURLM *m, CURLMoption o, long v) {
    return ready() ? lib.multi_setopt(m, o, v) : CURLM_INTERNAL_ERROR;
}
