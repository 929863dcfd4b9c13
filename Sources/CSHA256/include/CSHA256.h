#ifndef CSHA256_H
#define CSHA256_H
#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has the SHA extensions (and SSSE3, SSE4.1) that the functions below need. Always 0 on
/// other architectures than x86-64.
int dl_sha256_native_available(void);

#if defined(__x86_64__)
/// Runs the SHA-256 compression function over `blocks` 64-byte blocks at `data`, updating `state` (the eight
/// working words, a..h, in host order). Only when dl_sha256_native_available() returned 1.
void dl_sha256_native_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

/// As dl_sha256_native_blocks for two independent messages at once, `blocks` blocks of each: the two chains
/// interleave, so the CPU's SHA unit works on one while the other waits for a result (built by clang -O2 on an
/// AMD EPYC: about twice the throughput of one chain).
void dl_sha256_native_blocks2(uint32_t state_a[8], const uint8_t *data_a, uint32_t state_b[8],
                              const uint8_t *data_b, size_t blocks);
#endif

/// The portable compression function, for every CPU (what the stream below uses where the native one is missing).
void dl_sha256_portable_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

/// An incremental SHA-256: dl_sha256_init, any number of dl_sha256_update, then dl_sha256_final. Needs no
/// allocation and no library; the native compression where the CPU has it.
typedef struct {
    uint32_t state[8];
    uint64_t length;
    uint8_t tail[64];
    int native;
} dl_sha256_ctx;

void dl_sha256_init(dl_sha256_ctx *ctx);
/// As dl_sha256_init, with the native compression only if `native` is non-zero (and the CPU has it): for tests.
void dl_sha256_init_engine(dl_sha256_ctx *ctx, int native);
void dl_sha256_update(dl_sha256_ctx *ctx, const void *data, size_t length);
/// dl_sha256_update of two different contexts, each with its own bytes: when both run the native compression and
/// neither holds a partial block, the whole blocks both have are hashed side by side (dl_sha256_native_blocks2).
void dl_sha256_update2(dl_sha256_ctx *a, const void *data_a, size_t length_a, dl_sha256_ctx *b, const void *data_b,
                       size_t length_b);
/// Writes the 32-byte digest; the context must be initialised again before another use.
void dl_sha256_final(dl_sha256_ctx *ctx, uint8_t digest[32]);

#endif
