import CThreadPlacement

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
    private let allowed: CPUMask
    /// The creator's CPUs but the one it was running on: where the thread may start.
    private let elsewhere: CPUMask

    /// The placement for a thread the calling thread is about to create; `nil` when it may run
    /// on one CPU only (or the kernel will not say), where nothing else can be done.
    package init?() {
        let cpu = Int(ctp_current_cpu())
        guard let allowed = CPUMask.ofCallingThread(), cpu >= 0 else { return nil }
        var elsewhere = allowed
        elsewhere.remove(cpu)
        if elsewhere.cpus.isEmpty { return nil }
        self.allowed = allowed
        self.elsewhere = elsewhere
    }

    /// Sets `attributes` so that the thread starts on one of the CPUs `elsewhere`.
    func apply(to attributes: inout pthread_attr_t) {
        var words = elsewhere.words
        _ = words.withUnsafeMutableBytes { ctp_start_on_cpus(&attributes, $0.baseAddress) }
    }

    /// On the new thread, first thing: it may run on every CPU its creator may.
    func release() { allowed.applyToCallingThread() }

    /// The CPUs the calling thread may run on.
    package static func allowedCPUs() -> [Int] { CPUMask.ofCallingThread()?.cpus ?? [] }

    /// The CPU the calling thread is running on, or -1.
    package static func currentCPU() -> Int { Int(ctp_current_cpu()) }

    /// Lets the calling thread run on `cpus` only (tests).
    @discardableResult
    package static func allow(_ cpus: [Int]) -> Bool {
        var mask = CPUMask()
        for cpu in cpus { mask.insert(cpu) }
        return mask.applyToCallingThread()
    }
}

/// A set of CPUs as the kernel's affinity calls take it: `CTP_MASK_BYTES` of bits.
private struct CPUMask: Sendable {
    static let bitsPerWord = UInt.bitWidth
    private(set) var words = [UInt](repeating: 0, count: Int(CTP_MASK_BYTES) / MemoryLayout<UInt>.size)

    static func ofCallingThread() -> CPUMask? {
        var mask = CPUMask()
        let status = mask.words.withUnsafeMutableBytes { ctp_allowed_cpus($0.baseAddress) }
        return status == 0 ? mask : nil
    }

    @discardableResult
    func applyToCallingThread() -> Bool {
        words.withUnsafeBytes { ctp_allow_cpus($0.baseAddress) } == 0
    }

    var cpus: [Int] { (0..<words.count * Self.bitsPerWord).filter(contains) }

    func contains(_ cpu: Int) -> Bool {
        cpu >= 0 && cpu < words.count * Self.bitsPerWord && words[cpu / Self.bitsPerWord] & bit(cpu) != 0
    }

    mutating func insert(_ cpu: Int) {
        if cpu >= 0 && cpu < words.count * Self.bitsPerWord { words[cpu / Self.bitsPerWord] |= bit(cpu) }
    }

    mutating func remove(_ cpu: Int) {
        if cpu >= 0 && cpu < words.count * Self.bitsPerWord { words[cpu / Self.bitsPerWord] &= ~bit(cpu) }
    }

    private func bit(_ cpu: Int) -> UInt { UInt(1) << UInt(cpu % Self.bitsPerWord) }
}
