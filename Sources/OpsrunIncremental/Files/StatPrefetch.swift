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
///
/// The work comes in chunks of consecutive tasks: whoever takes a chunk lists its tasks' files and
/// stats them, so the first stats are taken at once rather than after the whole run's files are
/// listed (for 10,000 tasks, listing alone took 3 to 8 ms).
final class StatPrefetch: @unchecked Sendable {
    /// Below this many files, threads cost more than they spare.
    static let minimumFileCount = 256
    /// Tasks per unit of work: small enough for the checks to start early, large enough that the
    /// lock is taken rarely (with a source and an output each, 256 stats).
    static let tasksPerChunk = 128

    /// Where to stat, in order: each task's literal outputs, then its literal sources.
    typealias Opening = (opening: String, directory: Int32)

    /// One chunk's stats, written by the thread that took it before it is marked done.
    private final class Chunk {
        /// `statuses[starts[i]..<starts[i + 1]]` belong to the chunk's `i`th task.
        var starts: [Int] = []
        var statuses = UnsafeMutableBufferPointer<FileStatus?>(start: nil, count: 0)
        deinit { statuses.deallocate() }
    }

    private let taskCount: Int
    private let paths: @Sendable (Int) -> [Opening]
    /// By chunk; each element is written once, by the thread that took the chunk.
    private let chunks: UnsafeMutableBufferPointer<Chunk?>

    // Guarded by `mutex`, signalled on `condition` when any of them changes.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var isCancelled = false
    private var nextChunk = 0
    private var chunkIsDone: [Bool]
    /// Chunks done from the first one on, without a gap.
    private var donePrefix = 0

    /// `donePrefix` as last seen by the checking thread: below it, no lock is needed.
    private var seenDonePrefix = 0

    /// Starts statting what `paths(index)` names for each of `taskCount` tasks, on `workers` threads
    /// besides the caller's; returns at once.
    init(taskCount: Int, workers: Int = StatPrefetch.workerCount, paths: @escaping @Sendable (Int) -> [Opening]) {
        self.taskCount = taskCount
        self.paths = paths
        let chunkCount = (taskCount + Self.tasksPerChunk - 1) / Self.tasksPerChunk
        chunks = .allocate(capacity: chunkCount)
        chunks.initialize(repeating: nil)
        chunkIsDone = Array(repeating: false, count: chunkCount)
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        for _ in 0..<max(workers, 1) {
            DispatchQueue.global().async { self.work() }
        }
    }

    deinit {
        chunks.deinitialize()
        chunks.deallocate()
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
        pthread_mutex_lock(mutex)
        isCancelled = true
        pthread_mutex_unlock(mutex)
    }

    /// Task `index`'s stats, in the order `paths` gave its files: waits for them, or takes them.
    func statuses(ofTask index: Int) -> PrefetchedStatuses {
        let chunkIndex = index / Self.tasksPerChunk
        if chunkIndex >= seenDonePrefix {
            waitForChunk(chunkIndex)
        }
        let chunk = chunks[chunkIndex]!
        let task = index - chunkIndex * Self.tasksPerChunk
        return PrefetchedStatuses(
            buffer: UnsafeBufferPointer(rebasing: chunk.statuses[chunk.starts[task]..<chunk.starts[task + 1]]))
    }

    private func waitForChunk(_ chunk: Int) {
        pthread_mutex_lock(mutex)
        while donePrefix <= chunk {
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

    /// Takes the next chunk, lists and stats it without the lock meanwhile; call with `mutex` held.
    private func statNextChunk() {
        let index = nextChunk
        nextChunk += 1
        pthread_mutex_unlock(mutex)
        chunks[index] = stat(chunk: index)
        pthread_mutex_lock(mutex)
        chunkIsDone[index] = true
        while donePrefix < chunkIsDone.count && chunkIsDone[donePrefix] { donePrefix += 1 }
        pthread_cond_broadcast(condition)
    }

    private func stat(chunk index: Int) -> Chunk {
        let lower = index * Self.tasksPerChunk
        let upper = min(lower + Self.tasksPerChunk, taskCount)
        var files: [Opening] = []
        var starts = [0]
        starts.reserveCapacity(upper - lower + 1)
        for task in lower..<upper {
            files.append(contentsOf: paths(task))
            starts.append(files.count)
        }
        let chunk = Chunk()
        chunk.starts = starts
        chunk.statuses = .allocate(capacity: files.count)
        for (offset, file) in files.enumerated() {
            (chunk.statuses.baseAddress! + offset).initialize(to: FileSystem.status(file.opening, in: file.directory))
        }
        return chunk
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
