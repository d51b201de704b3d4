#define _GNU_SOURCE
#include "CHeapShims.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

int chs_reserve_huge_page_heap(size_t bytes) {
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (bytes > INT_MAX) bytes = INT_MAX;
    // Blocks up to 32 MiB come from the heap rather than one small-paged mmap each.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
    // Worker threads (stat prefetch, state reading) allocate from this heap too rather than from
    // arenas of their own with small pages; their small blocks mostly come from per-thread caches.
    mallopt(M_ARENA_MAX, 1);
    mallopt(M_TOP_PAD, (int)bytes);
    // A block larger than the heap's free top makes glibc extend it by the pad now.
    void *probe = malloc(1 << 20);
    if (probe == NULL) return -1;
    free(probe);
    mallopt(M_TOP_PAD, 128 << 10);
    uintptr_t start = ((uintptr_t)probe + huge - 1) & ~(huge - 1);
    uintptr_t end = (uintptr_t)sbrk(0) & ~(huge - 1);
    if (end <= start) return -1;
    return madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)bytes;
    return -1;
#endif
}
