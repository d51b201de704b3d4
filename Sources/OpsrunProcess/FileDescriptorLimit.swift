import Glibc

/// opsrun's limit on open descriptors, raised when it runs out.
///
/// Each running command holds four of them (a pair of pipes, both ends; five with a pidfd), so the
/// usual soft limit of 1,024 runs out near `-j 250`. On the first EMFILE the soft limit is raised
/// to the hard one, as Go programs do at start, and every command spawned from then on gets the
/// original limit back before it execs (a program using `select` must not see descriptors above
/// 1,024). Only the run loop's thread raises it; children read `original` until they exec, so it
/// is set once and never freed.
enum FileDescriptorLimit {
    /// The limit opsrun started with, once it has been raised; nil before.
    nonisolated(unsafe) private(set) static var original: UnsafeMutablePointer<rlimit>?

    /// Raises the soft limit to the hard one; false when it already was there (or cannot be).
    static func raiseSoftLimit() -> Bool {
        guard original == nil else { return false }
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return false }
        let saved = UnsafeMutablePointer<rlimit>.allocate(capacity: 1)
        saved.initialize(to: limit)
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(resource, &limit) == 0 else {
            saved.deallocate()
            return false
        }
        original = saved
        return true
    }

    /// `body()`, once more after raising the limit if it failed with EMFILE.
    static func retryingOnExhaustion<T>(_ body: () -> T?) -> T? {
        if let result = body() { return result }
        guard errno == EMFILE, raiseSoftLimit() else { return nil }
        return body()
    }

    private static var resource: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
