#ifndef CHEAPSHIMS_H
#define CHEAPSHIMS_H

#include <stddef.h>

/// Extends glibc's main heap by `bytes` at once and marks the range MADV_HUGEPAGE; turns off
/// trimming so the range is never returned and re-mapped unmarked. See Support/HugePageHeap.swift.
/// Returns 0 when the range was marked, -1 otherwise (nothing is lost either way).
int chs_reserve_huge_page_heap(size_t bytes);

#endif
