#ifndef CWEBSOCKETS_SHIM_H
#define CWEBSOCKETS_SHIM_H
/* A missing header names the Debian package that provides it (tools/bootstrap installs it). */
#if !__has_include(<libwebsockets.h>)
#error "libwebsockets.h not found: install the Debian package libwebsockets-dev (or run tools/bootstrap)"
#endif
#include <libwebsockets.h>
#include <malloc.h>

/* LWS_PRE is a macro Swift cannot import: the headroom lws_write needs before the payload. */
static inline size_t cws_pre(void) { return LWS_PRE; }

/* Nothing from the library itself: a failure reaches the user as our own one-line error. */
static inline void cws_quiet_log(void) { lws_set_log_level(0, NULL); }

/* Context options (64-bit macros built from shifts). */
static inline uint64_t cws_option_disable_ipv6(void) { return LWS_SERVER_OPTION_DISABLE_IPV6; }
static inline uint64_t cws_option_validate_utf8(void) { return LWS_SERVER_OPTION_VALIDATE_UTF8; }
/* A timer on the service thread: lws calls `cb` with the list entry, the first member, so the owner is found. */
typedef struct cws_timer {
    lws_sorted_usec_list_t sul;
    void *owner;
} cws_timer;

static inline void cws_schedule(struct lws_context *context, cws_timer *timer, sul_cb_t cb, int64_t us) {
    lws_sul_schedule(context, 0, &timer->sul, cb, us);
}
/* glibc's malloc arenas, at most `n` (mallopt is not in Swift's Glibc module); nonzero when set. */
static inline int cws_limit_malloc_arenas(int n) { return mallopt(M_ARENA_MAX, n); }
#endif
