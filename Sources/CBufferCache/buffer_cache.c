// A small cache of large freed blocks in front of the C library's allocator; see CBufferCache.h.
#include "CBufferCache.h"

#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static void *cached[DL_CACHED_BLOCKS];
static size_t cached_size[DL_CACHED_BLOCKS];  // malloc_usable_size of each
static int cached_count = 0;
static size_t reused = 0;

void *dl_cache_malloc(size_t size) {
    if (size >= DL_CACHED_BLOCK_MIN) {
        void *found = NULL;
        pthread_mutex_lock(&cache_lock);
        // A block that fits without wasting more than half of it.
        for (int index = cached_count - 1; index >= 0; index--) {
            if (cached_size[index] >= size && cached_size[index] / 2 <= size) {
                found = cached[index];
                cached_count--;
                cached[index] = cached[cached_count];
                cached_size[index] = cached_size[cached_count];
                reused++;
                break;
            }
        }
        pthread_mutex_unlock(&cache_lock);
        if (found) return found;
    }
    return malloc(size);
}

void dl_cache_free(void *pointer) {
    if (!pointer) return;
    size_t size = malloc_usable_size(pointer);
    if (size >= DL_CACHED_BLOCK_MIN) {
        pthread_mutex_lock(&cache_lock);
        if (cached_count < DL_CACHED_BLOCKS) {
            cached[cached_count] = pointer;
            cached_size[cached_count] = size;
            cached_count++;
            pointer = NULL;
        }
        pthread_mutex_unlock(&cache_lock);
    }
    free(pointer);
}

void *dl_cache_realloc(void *pointer, size_t size) { return realloc(pointer, size); }

char *dl_cache_strdup(const char *text) { return strdup(text); }

void *dl_cache_calloc(size_t count, size_t size) { return calloc(count, size); }

size_t dl_cache_reused(void) {
    pthread_mutex_lock(&cache_lock);
    size_t count = reused;
    pthread_mutex_unlock(&cache_lock);
    return count;
}
