// A no-op run is bound by `stat(2)`: one per source, output and depfile input, about 2 µs each on a
// virtual machine, so 40 ms for 10,000 tasks, as much as everything else together. The files a run
// will look at are, almost always, the files the state already has stat entries for, and those
// are known as soon as the state is read, before the manifest is even parsed. So the state starts
// statting them then, on another thread (`StateStore.prefetchStats`), in the state's order (which
// is the order of its tasks), while the run's own thread reads the manifest and plans; the checks
// then find each file's stat taken, and take the next chunk themselves rather than wait for one
// nobody has started. A file the state does not know is statted when checked, as without any of
// this.
//
// Why a stat taken early is as good as one taken at check time: until the first command of the run
// starts, nothing this run does writes a file, so the only difference is an outside edit between the
// prefetch and the check, which is the same race as an edit just before the run started (the next
// run sees it). Once any command starts (`IncrementalRun.willRun`), the prefetch is stopped, its
// workers joined (each finishes the chunk it holds, which nobody reads) and dropped, and every later
// check stats afresh, so a prerequisite's rewritten outputs are always seen as it left them.
import OpsrunCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Stats of a list of files, taken on other threads, by position in the list.
///
/// The work comes in chunks of consecutive files, so the first stats are ready at once. Measured
/// (Benchmarks/README.md): a 10,000-task no-op took 1.71× as long with no prefetch; taking the
/// state's list rather than the tasks' once known, c300's no-op 4.73 → 4.42 ms and the
/// 10,000-task one 49 → 45 ms. The worker threads are this object's: `finish()` stops and joins
/// them, and its owner (`StateStore`) calls it before the first command starts and when it closes.
/// `@unchecked Sendable`: the workers share it; what they share is behind `state`'s mutex, and
/// each chunk is written by the one thread that took it before it is marked done under the lock.
final class StatPrefetch: @unchecked Sendable {
    /// Below this many files, a thread costs more than it spares.
    static let minimumFileCount = 256
    /// Files per unit of work: small enough for the checks to start early, large enough that the
    /// lock is taken rarely.
    static let filesPerChunk = 256

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

    /// Relative paths are opened from `directory`, the descriptor of the directory they are
    /// relative to, held open until `finish()` has joined the workers.
    private let paths: [String]
    private let files: any FileAccess
    private var directory: Int32
    private let chunkCount: Int
    /// By file; each chunk's part is written by the thread that took it, read once it is done.
    private let statuses: UnsafeMutableBufferPointer<FileStatus?>
    private let state: Mutex<Progress>
    private var workers: [JoinedThread<Void>] = []

    /// `donePrefix` as last seen by the checking thread: below it, no lock is needed.
    private var seenDonePrefix = 0

    /// Starts statting `paths` (relative to `base`, or absolute) on `workers` threads besides the
    /// caller's and returns at once; `nil` when `base` cannot be opened. The workers start where
    /// the kernel puts them, next to their creator: that is the state's thread, which ends right
    /// after, not the run's (`ThreadPlacement` would put them on the run's CPU).
    init?(
        paths: [String], relativeTo base: String, workers: Int = StatPrefetch.workerCount,
        files: any FileAccess = DiskFiles()
    ) {
        self.files = files
        directory = files.openDirectory(base)
        guard directory != AT_FDCWD else { return nil }
        self.paths = paths
        chunkCount = (paths.count + Self.filesPerChunk - 1) / Self.filesPerChunk
        statuses = .allocate(capacity: paths.count)
        statuses.initialize(repeating: nil)
        state = Mutex(Progress(chunkIsDone: Array(repeating: false, count: chunkCount)))
        self.workers = (0..<max(workers, 1)).map { _ in JoinedThread { self.work() } }
    }

    deinit {
        finish()
        statuses.deallocate()
    }

    /// One worker per core but the checking thread's, which takes chunks itself when it catches
    /// up: a worker on every core made three busy threads on two cores, and the 10k no-op about
    /// 6 ms slower (medians of 60 interleaved runs: 63-69 against 58-61 ms).
    static var workerCount: Int { max(1, Processors.online - 1) }

    /// Stops handing out chunks and waits for the workers to end (each finishes the chunk it
    /// holds); call before the first command of the run starts, and at the latest before letting
    /// go of this object.
    func finish() {
        state.withLock { $0.isCancelled = true }
        joinWorkers()
        files.closeDirectory(directory)
        directory = AT_FDCWD
    }

    private func joinWorkers() {
        for worker in workers { worker.join() }
        workers = []
    }

    /// The stat of file `index` (`nil` inside when nothing was there): waits for it, or takes it.
    func status(ofFile index: Int) -> FileStatus? {
        let chunk = index / Self.filesPerChunk
        if chunk >= seenDonePrefix { waitForChunk(chunk) }
        return statuses[index]
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
                stat(chunk: next)
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
            stat(chunk: next)
            statted = next
        }
    }

    private func stat(chunk index: Int) {
        let lower = index * Self.filesPerChunk
        for file in lower..<min(lower + Self.filesPerChunk, paths.count) {
            statuses[file] = files.status(paths[file], in: directory)
        }
    }
}
