import CHeapShims

/// Backs the allocator's heap with transparent huge pages before a large manifest is read.
///
/// A 10,000-task manifest builds about 60 MB of values, and with 4 KiB pages the kernel takes
/// about 15,000 page faults to hand them over, a fifth of a no-op run's time. One large heap
/// extension up front, marked `MADV_HUGEPAGE`, turns those into a few dozen 2 MiB faults (glibc's
/// `glibc.malloc.hugetlb=1` tunable does the same, but only when set in the environment before the
/// process starts). Memory stays with the process until it exits, which is soon. Worker threads
/// allocate from the same heap (one arena), not from small-paged arenas of their own.
public enum HugePageHeap {
    /// Below this a manifest's run allocates a few megabytes: one 2 MiB page would be mostly waste.
    public static let worthwhileManifestBytes = 256 << 10

    /// Reserves `bytes` of address space at the top of the heap, marked for huge pages; only pages
    /// touched become memory. Call from the main thread, before the allocations it is meant for.
    /// Without transparent huge pages (or glibc) the heap keeps its usual pages and nothing is lost.
    public static func reserve(bytes: Int) {
        _ = chs_reserve_huge_page_heap(min(bytes, 1 << 30))
    }

    /// Reserves for a run of the manifest at `path`, if it is large enough to be worth it: before
    /// its text is read and before the state is opened on another thread, so that those buffers
    /// (a few megabytes for 10,000 tasks) are on huge pages too.
    public static func reserve(forManifestAt path: String) {
        guard let size = FileSystem.status(path)?.size, size >= worthwhileManifestBytes else { return }
        reserve(bytes: Int(size) * 64)
    }
}
