// A no-op run is bound by `stat(2)`: one per source and per output, about 2 µs each on a virtual
// machine, so 40 ms for 10,000 tasks, as much as everything else together. Stats of different files
// are independent, so worker threads take them in chunks, in task order, from the moment the run
// knows its tasks; the checks, on the run's own thread, consume them as they come and take the next
// chunk themselves rather than wait for one nobody has started.
//
// Why a stat taken early is as good as one taken at check time: until the first command of the run
// starts, nothing this run does writes a file, so the only difference is an outside edit between the
// prefetch and the check, which is the same race as an edit just after the check (the next run sees
// it). Once any command starts (`IncrementalRun.willRun`), the prefetch is stopped, its workers
// joined (each finishes the chunk it holds, which nobody reads) and dropped, and every later check
// stats afresh, so a prerequisite's rewritten outputs are always seen as it left them.
import OpsrunCore
import Synchronization
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
/// listed (for 10,000 tasks, listing alone took 3 to 8 ms). Measured: a 10,000-task no-op took
/// 1.71× as long without it (Benchmarks/README.md).
///
/// The worker threads are this object's: `finish()` stops and joins them, and its owner
/// (`IncrementalRun`) calls it before the first command starts and when it ends.
/// `@unchecked Sendable`: the workers share it; what they share is behind `state`'s mutex, and
/// each chunk is written by the one thread that took it before it is marked done under the lock.
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

    /// Who takes which chunk, and which are done.
    private struct Progress {
        var isCancelled = false
        var nextChunk = 0
        var chunkIsDone: [Bool]
        /// Chunks done from the first one on, without a gap.
        var donePrefix = 0

        mutating func markDone(_ index: Int, of count: Int) {
            chunkIsDone[index] = true
            while donePrefix < count && chunkIsDone[donePrefix] { donePrefix += 1 }
        }
    }

    private let taskCount: Int
    private let chunkCount: Int
    private let paths: @Sendable (Int) -> [Opening]
    /// By chunk; each element is written once, by the thread that took it.
    private let chunks: UnsafeMutableBufferPointer<Chunk?>
    private let state: Mutex<Progress>
    private var workers: [JoinedThread<Void>] = []

    /// `donePrefix` as last seen by the checking thread: below it, no lock is needed.
    private var seenDonePrefix = 0

    /// Starts statting what `paths(index)` names for each of `taskCount` tasks, on `workers` threads
    /// besides the caller's; returns at once.
    init(taskCount: Int, workers: Int = StatPrefetch.workerCount, paths: @escaping @Sendable (Int) -> [Opening]) {
        self.taskCount = taskCount
        self.paths = paths
        chunkCount = (taskCount + Self.tasksPerChunk - 1) / Self.tasksPerChunk
        chunks = .allocate(capacity: chunkCount)
        chunks.initialize(repeating: nil)
        state = Mutex(Progress(chunkIsDone: Array(repeating: false, count: chunkCount)))
        self.workers = (0..<max(workers, 1)).map { _ in JoinedThread { self.work() } }
    }

    deinit {
        chunks.deinitialize()
        chunks.deallocate()
    }

    /// One worker per core but the checking thread's, which takes chunks itself when it catches
    /// up: a worker on every core made three busy threads on two cores, and the 10k no-op about
    /// 6 ms slower (medians of 60 interleaved runs: 63-69 against 58-61 ms).
    static var workerCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) - 1) }

    /// Stops handing out chunks and waits for the workers to end (each finishes the chunk it
    /// holds); call before the first command of the run starts, and at the latest before letting
    /// go of this object.
    func finish() {
        state.withLock { $0.isCancelled = true }
        joinWorkers()
    }

    private func joinWorkers() {
        for worker in workers { worker.join() }
        workers = []
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
        // The chunk this thread statted last, marked done with the next lock taken: one lock per
        // chunk, not two.
        var statted: Int?
        while true {
            // Done, or the next chunk to take here (even once cancelled: asked is asked), or none
            // left to take: then the ones not done are the workers', which end once they are.
            let (done, next) = state.withLock { progress -> (Int, Int?) in
                if let statted { progress.markDone(statted, of: chunkCount) }
                if progress.donePrefix > chunk { return (progress.donePrefix, nil) }
                guard progress.nextChunk < chunkCount else { return (progress.donePrefix, nil) }
                progress.nextChunk += 1
                return (progress.donePrefix, progress.nextChunk - 1)
            }
            statted = nil
            if done > chunk {
                seenDonePrefix = done
                return
            }
            if let next {
                chunks[next] = stat(chunk: next)
                statted = next
            } else {
                joinWorkers()
                seenDonePrefix = state.withLock { $0.donePrefix }
                precondition(seenDonePrefix > chunk, "a chunk was taken and never done")
                return
            }
        }
    }

    /// A worker: takes chunks in order until none is left or the prefetch is cancelled, marking
    /// each done when it takes the next (or stops).
    private func work() {
        var statted: Int?
        while let next = state.withLock({ progress -> Int? in
            if let statted { progress.markDone(statted, of: chunkCount) }
            guard progress.nextChunk < chunkCount && !progress.isCancelled else { return nil }
            progress.nextChunk += 1
            return progress.nextChunk - 1
        }) {
            chunks[next] = stat(chunk: next)
            statted = next
        }
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
