#ifndef CWSGUARD_H
#define CWSGUARD_H
/*
 * Closes WebSocket server connections whose client sends an unmasked frame (RFC 6455 §5.1).
 *
 * libwebsockets 4.1.6 (Debian 12) unmasks such a frame with a zero key and does not tell its user. It reads a
 * plain connection with recv(2); guard.c defines `recv` in the executable, which wins over libc's for
 * libwebsockets.so, and walks the frame headers of registered descriptors only. See docs/rpc.md.
 */
#include <stddef.h>
#include <stdint.h>

/* Descriptors at or above this are not watched: cwsg_register refuses them. */
#define CWSG_MAX_FD 65536

/* Where a walk stands in a client's byte stream: filled by the walker, zero to start at a frame header. */
typedef struct cwsg_walk_state {
    uint8_t step;       /* 0: byte 0; 1: byte 1; 2: extended length; 3: mask key; 4: payload */
    uint8_t need;       /* bytes still wanted in steps 2 and 3 */
    uint8_t masked;     /* the mask bit of the frame being walked */
    uint8_t spare;
    uint64_t count;     /* extended length so far (step 2), payload bytes left (steps 3 and 4) */
} cwsg_walk_state;

/* Walks `n` bytes of a client's stream: 0 while every frame so far is masked, -1 on an unmasked frame or a
   64-bit length with its top bit set. Reads only the header bytes; the payload is skipped by count. */
int cwsg_walk(cwsg_walk_state *state, const uint8_t *bytes, size_t n);

/* Watches a new server connection while it speaks HTTP: keeps the last four bytes read; -1 if out of range. */
int cwsg_watch_http(int fd);

/* Watches `fd` from its next byte on, as a WebSocket server connection; -1 if it is out of range, -2 if it was
   watched as HTTP and its last read did not end with the handshake (the client sent more before the reply). */
int cwsg_register(int fd);

/* Stops watching `fd` (also done by close(2) on it). */
void cwsg_unregister(int fd);

/* recv calls seen on watched descriptors, and connections closed for an unmasked frame, since start. */
uint64_t cwsg_watched_reads(void);
uint64_t cwsg_rejected(void);
#endif
