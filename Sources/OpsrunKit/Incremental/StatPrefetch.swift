// A no-op run is bound by `stat(2)`: one per source and per output, about 2 µs each on a virtual
// machine, so 40 ms for 10,000 tasks, as much as everything else together. Stats of different files
// are independent, so they are taken up front on every core, before the first check.
//
// Why a stat taken early is as good as one taken at check time: until the first command of the run
// starts, nothing this run does writes a file, so the only difference is an outside edit between the
// prefetch and the check, which is the same race as an edit just after the check (the next run sees
// it). Once any command starts (`IncrementalRun.willRun`), the prefetch is dropped and every later
// check stats afresh, so a prerequisite's rewritten outputs are always seen as it left them.
import Dispatch

/// The stats of every task's literal sources and outputs, taken in parallel, by task index.
final class StatPrefetch {
    /// Below this many files, threads cost more than they spare.
    static let minimumFileCount = 256

    private var statuses: [FileStatus?]
    /// `statuses[starts[i]..<starts[i + 1]]` belong to task `i`: its literal sources, then its
    /// literal outputs, in declared order.
    private let starts: [Int]

    /// Stats what `paths(of:)` names for each task; `nil` when there are too few files to bother.
    init?(taskCount: Int, paths: (Int) -> [(opening: String, directory: Int32)]) {
        var openings: [(opening: String, directory: Int32)] = []
        var starts: [Int] = [0]
        starts.reserveCapacity(taskCount + 1)
        for index in 0..<taskCount {
            openings.append(contentsOf: paths(index))
            starts.append(openings.count)
        }
        guard openings.count >= Self.minimumFileCount else { return nil }
        self.starts = starts
        let files = openings
        let results = UnsafeMutableBufferPointer<FileStatus?>.allocate(capacity: files.count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        // Each chunk writes its own range of `results` and nothing else; all are done when
        // `concurrentPerform` returns.
        nonisolated(unsafe) let shared = results
        let chunkCount = 16
        let chunkSize = (files.count + chunkCount - 1) / chunkCount
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            let lower = chunk * chunkSize
            let upper = min(lower + chunkSize, files.count)
            guard lower < upper else { return }
            for index in lower..<upper {
                shared[index] = FileSystem.status(files[index].opening, in: files[index].directory)
            }
        }
        statuses = Array(results)
    }

    /// Task `index`'s stats, in the order `paths(of:)` gave its files.
    func statuses(ofTask index: Int) -> ArraySlice<FileStatus?> {
        statuses[starts[index]..<starts[index + 1]]
    }
}
