import CThreadPlacement
#if canImport(Glibc)
    import Glibc
#endif

/// Where a thread that works beside its creator starts: on a CPU other than the creator's, then
/// free to run anywhere its creator may.
///
/// Why: Linux puts a new thread on its creator's CPU while that CPU looks lightly loaded (a
/// process a millisecond old always does), and the new thread then preempts its creator until a
/// load balance moves one of them, milliseconds later here. Measured on c300's no-op
/// (Benchmarks/README.md): the state's thread began its work 1.3 ms after it was created (median
/// of 60 runs), the run's thread waited 0.8 ms for the state, and the other core idled; started
/// elsewhere it began within 0.2 ms, and the no-op took 4.40 ms instead of 5.22 (alternated).
package struct ThreadPlacement: Sendable {
    /// The creator's CPUs: the thread's once it runs (`release()`).
    private var allowed = Self.emptyMask()
    /// The creator's CPUs but the one it was running on: where the thread may start.
    private var elsewhere = Self.emptyMask()
    /// The CPU left out.
    package let creatorCPU: Int

    /// The placement for a thread the calling thread is about to create; `nil` when it may run
    /// on one CPU only (or the kernel will not say), where nothing else can be done.
    package init?() {
        guard ctp_allowed_cpus(&allowed) == 0 else { return nil }
        creatorCPU = Int(ctp_current_cpu())
        guard creatorCPU >= 0 else { return nil }
        elsewhere = allowed
        let bitsPerWord = UInt.bitWidth
        var others = 0
        withUnsafeMutableBytes(of: &elsewhere) { raw in
            let words = raw.bindMemory(to: UInt.self)
            guard creatorCPU / bitsPerWord < words.count else { return }
            words[creatorCPU / bitsPerWord] &= ~(UInt(1) << UInt(creatorCPU % bitsPerWord))
            others = words.reduce(0) { $0 + $1.nonzeroBitCount }
        }
        if others == 0 { return nil }
    }

    /// Sets `attributes` so that the thread starts on one of the CPUs `elsewhere`.
    func apply(to attributes: inout pthread_attr_t) {
        var elsewhere = elsewhere
        _ = ctp_start_on_cpus(&attributes, &elsewhere)
    }

    /// On the new thread, first thing: it may run on every CPU its creator may.
    func release() {
        var allowed = allowed
        _ = ctp_allow_cpus(&allowed)
    }

    /// Whether `cpu` is one where the thread may start.
    package func mayStart(on cpu: Int) -> Bool { Self.contains(elsewhere, cpu) }

    /// The CPUs the calling thread may run on.
    package static func allowedCPUs() -> [Int] {
        var mask = emptyMask()
        guard ctp_allowed_cpus(&mask) == 0 else { return [] }
        return (0..<Int(CTP_MASK_BYTES) * 8).filter { contains(mask, $0) }
    }

    /// The CPU the calling thread is running on, or -1.
    package static func currentCPU() -> Int { Int(ctp_current_cpu()) }

    /// Lets the calling thread run on `cpus` only (tests).
    @discardableResult
    package static func allow(_ cpus: [Int]) -> Bool {
        var mask = emptyMask()
        withUnsafeMutableBytes(of: &mask) { raw in
            let words = raw.bindMemory(to: UInt.self)
            for cpu in cpus where cpu / UInt.bitWidth < words.count {
                words[cpu / UInt.bitWidth] |= UInt(1) << UInt(cpu % UInt.bitWidth)
            }
        }
        return ctp_allow_cpus(&mask) == 0
    }

    private typealias Mask = (UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt)

    private static func emptyMask() -> Mask { (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) }

    private static func contains(_ mask: Mask, _ cpu: Int) -> Bool {
        withUnsafeBytes(of: mask) { raw in
            let words = raw.bindMemory(to: UInt.self)
            guard cpu >= 0, cpu / UInt.bitWidth < words.count else { return false }
            return words[cpu / UInt.bitWidth] & (UInt(1) << UInt(cpu % UInt.bitWidth)) != 0
        }
    }
}
