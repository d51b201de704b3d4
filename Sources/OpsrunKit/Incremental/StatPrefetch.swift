// A no-op run is bound by `stat(2)`: one per source and per output, about 2 µs each on a virtual
// machine, so 40 ms for 10,000 tasks, as much as everything else together. Stats of different files
// are independent, so worker threads take them in chunks, in task order, from the moment the run
// knows its tasks; the checks, on the run's own thread, consume them as they come and take the next
// chunk themselves rather than wait for one nobody has started.
//
// Why a stat taken early is as good as one taken at check time: until the first command of the run
// starts, nothing this run does writes a file, so the only difference is an outside edit between the
// prefetch and the check, which is the same race as an edit just after the check (the next run sees
// it). Once any command starts (`IncrementalRun.willRun`), the prefetch is cancelled and dropped and
// every later check stats afresh, so a prerequisite's rewritten outputs are always seen as it left
// them. (A worker may still finish a chunk after that; nobody reads it.)
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The stats of every task's literal sources and outputs, taken on other threads, by task index.
final class StatPrefetch: @unchecked Sendable {
    /// Below this many files, threads cost more than they spare.
    static let minimumFileCount = 256
    /// Files per unit of work: small enough for the checks to start early, large enough that the
    /// lock is taken rarely.
    static let chunkSize = 256

    /// Where to stat, in order: each task's literal outputs, then its literal sources.
    typealias Opening = (opening: String, directory: Int32)

    // Guarded by `mutex`, signalled on `condition` when any of them changes.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var isListed = false
    private var isCancelled = false
    private var nextChunk = 0
    private var chunkIsDone: [Bool] = []
    /// Files in the chunks done from the first one on, without a gap.
    private var donePrefix = 0

    // Written once before `isListed` is set; read-only after.
    private var files: [Opening] = []
    /// `statuses[starts[i]..<starts[i + 1]]` belong to task `i`.
    private var starts: [Int] = []
    // Each chunk's range is written by the one thread that took the chunk, before it is marked done.
    private var statuses = UnsafeMutableBufferPointer<FileStatus?>(start: nil, count: 0)

    // The checking thread's own: what it saw under the lock, so it need not take it again.
    /// `donePrefix` as last seen by the checking thread: below it, no lock is needed.
    private var seenDonePrefix = 0
    /// Whether the checking thread has seen the listing (after which `starts` is safe to read).
    private var isListedSeen = false

    /// Starts statting what `paths(index)` names for each of `taskCount` tasks, on `workers` threads
    /// besides the caller's; returns at once.
    init(taskCount: Int, workers: Int = StatPrefetch.workerCount, paths: @escaping @Sendable (Int) -> [Opening]) {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        DispatchQueue.global().async { [self] in
            var files: [Opening] = []
            var starts = [0]
            starts.reserveCapacity(taskCount + 1)
            for index in 0..<taskCount {
                files.append(contentsOf: paths(index))
                starts.append(files.count)
            }
            let statuses = UnsafeMutableBufferPointer<FileStatus?>.allocate(capacity: files.count)
            statuses.initialize(repeating: nil)
            locked {
                self.files = files
                self.starts = starts
                self.statuses = statuses
                chunkIsDone = Array(repeating: false, count: (files.count + Self.chunkSize - 1) / Self.chunkSize)
                isListed = true
            }
            for _ in 1..<max(workers, 1) {
                DispatchQueue.global().async { self.work() }
            }
            work()
        }
    }

    deinit {
        statuses.deallocate()
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// One worker per core but the checking thread's, which takes chunks itself when it catches
    /// up: a worker on every core made three busy threads on two cores, and the 10k no-op about
    /// 6 ms slower (medians of 60 interleaved runs: 63-69 against 58-61 ms).
    static var workerCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) - 1) }

    /// Stops handing out chunks; call before the first command of the run starts.
    func cancel() {
        locked { isCancelled = true }
    }

    /// Task `index`'s stats, in the order `paths` gave its files: waits for them, or takes them.
    func statuses(ofTask index: Int) -> PrefetchedStatuses {
        if !isListedSeen || starts[index + 1] > seenDonePrefix {
            waitForTask(index)
        }
        return PrefetchedStatuses(
            buffer: UnsafeBufferPointer(rebasing: statuses[starts[index]..<starts[index + 1]]))
    }

    private func waitForTask(_ index: Int) {
        pthread_mutex_lock(mutex)
        while !isListed { pthread_cond_wait(condition, mutex) }
        isListedSeen = true
        let end = starts[index + 1]
        while donePrefix < end {
            if nextChunk < chunkIsDone.count {
                // Rather than wait, take the next chunk here (even once cancelled: asked is asked).
                statNextChunk()
            } else {
                pthread_cond_wait(condition, mutex)
            }
        }
        seenDonePrefix = donePrefix
        pthread_mutex_unlock(mutex)
    }

    /// A worker: takes chunks in order until none is left or the prefetch is cancelled.
    private func work() {
        pthread_mutex_lock(mutex)
        while nextChunk < chunkIsDone.count && !isCancelled { statNextChunk() }
        pthread_mutex_unlock(mutex)
    }

    /// Takes the next chunk and stats it, without the lock meanwhile; call with `mutex` held.
    private func statNextChunk() {
        let chunk = nextChunk
        nextChunk += 1
        pthread_mutex_unlock(mutex)
        stat(chunk)
        pthread_mutex_lock(mutex)
        finished(chunk)
    }

    private func stat(_ chunk: Int) {
        let lower = chunk * Self.chunkSize
        let upper = min(lower + Self.chunkSize, files.count)
        for index in lower..<upper {
            statuses[index] = FileSystem.status(files[index].opening, in: files[index].directory)
        }
    }

    /// Marks `chunk` done; call with `mutex` held.
    private func finished(_ chunk: Int) {
        chunkIsDone[chunk] = true
        var next = donePrefix / Self.chunkSize
        while next < chunkIsDone.count && chunkIsDone[next] { next += 1 }
        donePrefix = min(next * Self.chunkSize, files.count)
        pthread_cond_broadcast(condition)
    }

    private func locked(_ body: () -> Void) {
        pthread_mutex_lock(mutex)
        body()
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}

/// One task's prefetched stats, handed out front first. Valid while its `StatPrefetch` lives.
struct PrefetchedStatuses {
    private let buffer: UnsafeBufferPointer<FileStatus?>
    private var next = 0

    init(buffer: UnsafeBufferPointer<FileStatus?>) { self.buffer = buffer }

    /// The next stat (`nil` inside for a file that was not there), or `nil` when all are taken.
    mutating func popFirst() -> FileStatus?? {
        guard next < buffer.count else { return nil }
        defer { next += 1 }
        return buffer[next]
    }
}
