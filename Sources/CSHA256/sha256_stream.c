// Incremental SHA-256 (FIPS 180-4) for the ledger's hash chain and anything else that hashes a few bytes at a
// time: the blocks go to the SHA-extension compression of sha256.c where the CPU has it, and to the portable one
// below elsewhere. Neither needs OpenSSL, whose first digest fetch loads its configuration and providers (about
// 1 ms, paid by every command that opened a ledger).
#include <string.h>

#include "CSHA256.h"

extern const uint32_t dl_sha256_round_constants[64];

static const uint32_t initial_state[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static inline uint32_t load_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

void dl_sha256_portable_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    uint32_t w[64];
    for (; blocks > 0; blocks--, data += 64) {
        for (int t = 0; t < 16; t++) w[t] = load_be32(data + 4 * t);
        for (int t = 16; t < 64; t++) {
            uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
            uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int t = 0; t < 64; t++) {
            uint32_t big1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
            uint32_t choose = (e & f) ^ (~e & g);
            uint32_t t1 = h + big1 + choose + dl_sha256_round_constants[t] + w[t];
            uint32_t big0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
            uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
            uint32_t t2 = big0 + majority;
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
    }
}

static void compress(dl_sha256_ctx *ctx, const uint8_t *data, size_t blocks) {
#if defined(__x86_64__)
    if (ctx->native) {
        dl_sha256_native_blocks(ctx->state, data, blocks);
        return;
    }
#endif
    dl_sha256_portable_blocks(ctx->state, data, blocks);
}

/// dl_sha256_native_available(), asked once: `cpuid` is a trap to the hypervisor in a virtual machine, and the
/// chain starts a hash per event.
static int native_available(void) {
    static int available = -1;
    int native = __atomic_load_n(&available, __ATOMIC_RELAXED);
    if (native < 0) {
        native = dl_sha256_native_available();
        __atomic_store_n(&available, native, __ATOMIC_RELAXED);
    }
    return native;
}

void dl_sha256_init_engine(dl_sha256_ctx *ctx, int native) {
    memcpy(ctx->state, initial_state, sizeof initial_state);
    ctx->length = 0;
    ctx->native = native && native_available();
}

void dl_sha256_init(dl_sha256_ctx *ctx) { dl_sha256_init_engine(ctx, 1); }

void dl_sha256_update(dl_sha256_ctx *ctx, const void *data, size_t length) {
    if (length == 0) return;
    const uint8_t *bytes = data;
    size_t pending = (size_t)(ctx->length % 64);
    ctx->length += length;
    if (pending > 0) {
        size_t take = 64 - pending < length ? 64 - pending : length;
        memcpy(ctx->tail + pending, bytes, take);
        bytes += take;
        length -= take;
        if (pending + take < 64) return;
        compress(ctx, ctx->tail, 1);
    }
    if (length >= 64) {
        compress(ctx, bytes, length / 64);
        bytes += length - length % 64;
        length %= 64;
    }
    if (length > 0) memcpy(ctx->tail, bytes, length);
}

void dl_sha256_update2(dl_sha256_ctx *a, const void *data_a, size_t length_a, dl_sha256_ctx *b, const void *data_b,
                       size_t length_b) {
    const uint8_t *bytes_a = data_a, *bytes_b = data_b;
#if defined(__x86_64__)
    size_t blocks = (length_a < length_b ? length_a : length_b) / 64;
    if (a->native && b->native && a->length % 64 == 0 && b->length % 64 == 0 && blocks > 0) {
        dl_sha256_native_blocks2(a->state, bytes_a, b->state, bytes_b, blocks);
        a->length += blocks * 64;
        b->length += blocks * 64;
        bytes_a += blocks * 64;
        bytes_b += blocks * 64;
        length_a -= blocks * 64;
        length_b -= blocks * 64;
    }
#endif
    dl_sha256_update(a, bytes_a, length_a);
    dl_sha256_update(b, bytes_b, length_b);
}

void dl_sha256_final(dl_sha256_ctx *ctx, uint8_t digest[32]) {
    uint64_t bits = ctx->length * 8;
    size_t pending = (size_t)(ctx->length % 64);
    ctx->tail[pending++] = 0x80;
    if (pending > 56) {
        memset(ctx->tail + pending, 0, 64 - pending);
        compress(ctx, ctx->tail, 1);
        pending = 0;
    }
    memset(ctx->tail + pending, 0, 56 - pending);
    for (int i = 0; i < 8; i++) ctx->tail[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
    compress(ctx, ctx->tail, 1);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(ctx->state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(ctx->state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(ctx->state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)ctx->state[i];
    }
}
