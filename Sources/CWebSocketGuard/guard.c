/*
 * Why this file exists: RFC 6455 §5.1 says a server must close a connection on which the client sends an
 * unmasked frame. libwebsockets 4.1.6 (Debian 12) treats such a frame as masked with a zero key and gives its
 * user no way to tell (5.0 fixes it). It reads plain connections with recv(2) from libwebsockets.so, so the
 * `recv` defined here, in the executable, is the one it calls. For descriptors the RPC server registered as
 * WebSocket connections it walks the frame headers of the bytes the real recv returned, without changing any,
 * and fails the read with ECONNRESET on an unmasked frame; lws then closes the connection. Every other recv in
 * the process costs one atomic load. A new server connection is watched from accept keeping only the last four
 * bytes read, so that frames sent together with the handshake (read before the walk can start) are refused.
 * close(2) is wrapped too, so a closed descriptor is never watched when its number is reused. See docs/rpc.md,
 * "Holding against hostile clients".
 */
#define _GNU_SOURCE
#include "cwsguard.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

enum { STEP_BYTE0 = 0, STEP_BYTE1, STEP_LENGTH, STEP_KEY, STEP_PAYLOAD };

int cwsg_walk(cwsg_walk_state *s, const uint8_t *bytes, size_t n) {
    size_t i = 0;
    while (i < n) {
        switch (s->step) {
        case STEP_BYTE0:
            i++;
            s->step = STEP_BYTE1;
            break;
        case STEP_BYTE1: {
            uint8_t b = bytes[i++];
            s->masked = (b & 0x80) != 0;
            if (!s->masked) return -1;
            uint8_t len7 = b & 0x7f;
            if (len7 == 126 || len7 == 127) {
                s->need = len7 == 126 ? 2 : 8;
                s->count = 0;
                s->step = STEP_LENGTH;
            } else {
                s->count = len7;
                s->need = 4;
                s->step = STEP_KEY;
            }
            break;
        }
        case STEP_LENGTH:
            s->count = (s->count << 8) | bytes[i++];
            if (--s->need == 0) {
                if (s->count >> 63) return -1;
                s->need = 4;
                s->step = STEP_KEY;
            }
            break;
        case STEP_KEY:
            i++;
            if (--s->need == 0) s->step = s->count > 0 ? STEP_PAYLOAD : STEP_BYTE0;
            break;
        default: {
            size_t left = n - i;
            if ((uint64_t)left >= s->count) {
                i += (size_t)s->count;
                s->count = 0;
                s->step = STEP_BYTE0;
            } else {
                s->count -= left;
                i = n;
            }
            break;
        }
        }
    }
    return 0;
}

/* One slot per descriptor. `watched` is written by the RPC server thread (register, unregister) and by any
   thread closing the descriptor; the rest only by the server thread, which alone reads a watched socket. */
typedef struct slot {
    _Atomic uint8_t watched;
    uint8_t failed;
    uint8_t frames;     /* 0: HTTP, only the last four bytes read are kept; 1: WebSocket frames are walked */
    uint32_t tail;      /* the last four bytes read while HTTP */
    cwsg_walk_state walk;
} slot;

static slot slots[CWSG_MAX_FD];
static _Atomic uint64_t watched_reads;
static _Atomic uint64_t rejected;

typedef ssize_t (*recv_fn)(int, void *, size_t, int);
typedef int (*close_fn)(int);
static _Atomic(recv_fn) real_recv_fn;
static _Atomic(close_fn) real_close_fn;

/* Falls back to the system call if the dynamic linker has no next definition (a static link). */
static ssize_t syscall_recv(int fd, void *buf, size_t len, int flags) {
    return (ssize_t)syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
}
static int syscall_close(int fd) { return (int)syscall(SYS_close, fd); }

static recv_fn real_recv(void) {
    recv_fn fn = atomic_load_explicit(&real_recv_fn, memory_order_acquire);
    if (fn) return fn;
    fn = (recv_fn)dlsym(RTLD_NEXT, "recv");
    if (!fn) fn = syscall_recv;
    atomic_store_explicit(&real_recv_fn, fn, memory_order_release);
    return fn;
}

static close_fn real_close(void) {
    close_fn fn = atomic_load_explicit(&real_close_fn, memory_order_acquire);
    if (fn) return fn;
    fn = (close_fn)dlsym(RTLD_NEXT, "close");
    if (!fn) fn = syscall_close;
    atomic_store_explicit(&real_close_fn, fn, memory_order_release);
    return fn;
}

static slot *watched_slot(int fd) {
    if (fd < 0 || fd >= CWSG_MAX_FD) return NULL;
    slot *s = &slots[fd];
    return atomic_load_explicit(&s->watched, memory_order_acquire) ? s : NULL;
}

ssize_t recv(int fd, void *buf, size_t len, int flags) {
    slot *s = watched_slot(fd);
    if (!s) return real_recv()(fd, buf, len, flags);
    atomic_fetch_add_explicit(&watched_reads, 1, memory_order_relaxed);
    if (s->failed) {
        errno = ECONNRESET;
        return -1;
    }
    ssize_t n = real_recv()(fd, buf, len, flags);
    if (n > 0 && !(flags & MSG_PEEK) && !s->frames) {
        const uint8_t *bytes = (const uint8_t *)buf;
        for (size_t i = (size_t)n > 4 ? (size_t)n - 4 : 0; i < (size_t)n; i++)
            s->tail = (s->tail << 8) | bytes[i];
        return n;
    }
    if (n > 0 && !(flags & MSG_PEEK) && cwsg_walk(&s->walk, (const uint8_t *)buf, (size_t)n) != 0) {
        s->failed = 1;
        atomic_fetch_add_explicit(&rejected, 1, memory_order_relaxed);
        errno = ECONNRESET;
        return -1;
    }
    return n;
}

int close(int fd) {
    if (fd >= 0 && fd < CWSG_MAX_FD && atomic_load_explicit(&slots[fd].watched, memory_order_relaxed))
        atomic_store_explicit(&slots[fd].watched, 0, memory_order_release);
    return real_close()(fd);
}

int cwsg_watch_http(int fd) {
    if (fd < 0 || fd >= CWSG_MAX_FD) return -1;
    slot *s = &slots[fd];
    s->failed = 0;
    s->frames = 0;
    s->tail = 0;
    atomic_store_explicit(&s->watched, 1, memory_order_release);
    return 0;
}

int cwsg_register(int fd) {
    if (fd < 0 || fd >= CWSG_MAX_FD) return -1;
    slot *s = &slots[fd];
    /* lws reads the handshake and anything sent with it in one recv, and parses the rest itself: the last
       read must end with the blank line that ends the handshake, or frames went by unwalked. */
    if (atomic_load_explicit(&s->watched, memory_order_acquire) && !s->frames && s->tail != 0x0d0a0d0au) return -2;
    s->failed = 0;
    s->frames = 1;
    s->walk = (cwsg_walk_state){0};
    atomic_store_explicit(&s->watched, 1, memory_order_release);
    return 0;
}

void cwsg_unregister(int fd) {
    if (fd >= 0 && fd < CWSG_MAX_FD) atomic_store_explicit(&slots[fd].watched, 0, memory_order_release);
}

uint64_t cwsg_watched_reads(void) { return atomic_load_explicit(&watched_reads, memory_order_relaxed); }
uint64_t cwsg_rejected(void) { return atomic_load_explicit(&rejected, memory_order_relaxed); }
