#ifndef CBUFFERCACHE_H
#define CBUFFERCACHE_H
#include <stddef.h>

/// malloc / free / realloc / strdup / calloc for libcurl (curl_global_init_mem) that keep freed blocks of at least
/// DL_CACHED_BLOCK_MIN bytes for the next allocation of about their size, instead of handing them back to the
/// system. libcurl allocates a receive buffer (CURLOPT_BUFFERSIZE) for every transfer and frees it at its end; a
/// fresh buffer is fresh memory, paged in by faults as the first bodies are copied into it.
enum { DL_CACHED_BLOCK_MIN = 64 * 1024, DL_CACHED_BLOCKS = 16 };

void *dl_cache_malloc(size_t size);
void dl_cache_free(void *pointer);
void *dl_cache_realloc(void *pointer, size_t size);
char *dl_cache_strdup(const char *text);
void *dl_cache_calloc(size_t count, size_t size);

/// Blocks reused from the cache so far (for tests).
size_t dl_cache_reused(void);

#endif
