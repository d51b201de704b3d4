import OpsrunCore
import OpsrunGraph
import OpsrunIncremental
import OpsrunManifest

// A source that is another task's declared output makes that task a prerequisite, as in make and
// ninja (docs/manual/up-to-date.md). Without the edge nothing ordered `link: { sources: [main.o] }`
// after the `compile` that writes `main.o`: a clean build failed at random, and after an edit to
// `main.c` the link was "up to date" with a stale program.
//
// A source makes an edge to each task (each instance of an `each` task) with a literal output that
// the source names, lies beneath (an output directory), holds (a source directory), or matches (a
// source glob). Output globs make none: what they match is known only once their task has run. A
// task's own outputs never count among its sources, nor do an `each` task's instances' outputs
// among one another's: they are all the task's own.
//
// Paths are compared as keys: normalized, relative to the manifest's directory when inside it (as
// written, most of the time: no copy), absolute otherwise. Literal outputs are a dictionary; a
// source looks itself up there, and its directory (whose outputs at or above it are remembered by
// directory: a lookup or two a source). Only a source that is a directory above some output, or a
// glob, searches the outputs sorted by their bytes, over the range its literal prefix starts. No
// step is quadratic in the number of tasks: 10,000 instances cost 10,000 lookups.

/// An edge a source makes (ids in the tasks `FileEdges.find` was given).
struct FileEdge {
    var task: Int
    var prerequisite: Int
    /// The `sources` entry of `task` that made it.
    var source: Int
    var read: FileRead
}

enum FileEdges {
    /// Every edge the sources of `tasks` make, by task, then source, then writer; each pair of
    /// tasks once. `tasks` are a graph's: `each` tasks (groups, reading and writing nothing)
    /// beside their instances.
    static func find(in tasks: [TaskSpec], manifestDirectory: String, environment: EnvironmentBuilder) -> [FileEdge] {
        guard tasks.contains(where: { !$0.outputs.isEmpty }), tasks.contains(where: { !$0.sources.isEmpty }),
            TopDirectories.mayMeet(tasks)
        else { return [] }
        var paths = TaskPaths(keys: PathKeys(manifestDirectory: manifestDirectory), environment: environment)
        var index = OutputIndex(keys: paths.keys)
        // By index, never binding a TaskSpec: that copies all of it (a dozen retains) per task.
        for id in tasks.indices where !tasks[id].outputs.isEmpty && tasks[id].each == nil {
            let place = paths.place(of: tasks[id], id: id)
            for output in tasks[id].outputs {
                let expanded = paths.expand(output.value, of: tasks[id], id: id)
                guard !expanded.isEmpty, let literal = GlobPattern.literalPath(of: expanded) else { continue }
                index.add(paths.keys.key(literal, in: place), shown: expanded, writer: id)
            }
        }
        if index.isEmpty { return [] }
        var edges: [FileEdge] = []
        // `lastReader[w] == t`: task `t` has an edge to `w` already.
        var lastReader = [Int](repeating: -1, count: tasks.count)
        // What a source every instance of an `each` task shares (written without `${...}`, in one
        // directory) reads, found once for them all: 10,000 instances reading `gen/*.h` search
        // once, and those reading `src/**/*.o` beside their own task's objects do not each walk
        // all 10,000 to drop them.
        var shared: [String: [(writer: Int, output: String, beneath: Bool)]] = [:]
        for id in tasks.indices where !tasks[id].sources.isEmpty && tasks[id].each == nil {
            let place = paths.place(of: tasks[id], id: id)
            let own = tasks[id].instance?.task
            for k in tasks[id].sources.indices {
                let template = tasks[id].sources[k].value
                let expanded = paths.expand(template, of: tasks[id], id: id)
                if expanded.isEmpty { continue }
                func add(_ writer: Int, _ output: String, _ beneath: Bool) {
                    guard lastReader[writer] != id else { return }
                    lastReader[writer] = id
                    let read = FileRead(source: expanded, output: output, file: beneath ? expanded : output)
                    edges.append(FileEdge(task: id, prerequisite: writer, source: k, read: read))
                }
                // Not the task itself, nor another instance of its own.
                func isOther(_ writer: Int) -> Bool {
                    writer != id && (tasks[writer].instance?.task ?? tasks[writer].name) != (own ?? tasks[id].name)
                }
                guard let own, expanded == template else {
                    index.writers(of: expanded, in: place) { writer, output, beneath in
                        if isOther(writer) { add(writer, output, beneath) }
                    }
                    continue
                }
                let key = own + "\u{0}" + place + "\u{0}" + template
                if shared[key] == nil {
                    var found: [(writer: Int, output: String, beneath: Bool)] = []
                    index.writers(of: expanded, in: place) { writer, output, beneath in
                        if isOther(writer) { found.append((writer, output, beneath)) }
                    }
                    shared[key] = found
                }
                for (writer, output, beneath) in shared[key]! { add(writer, output, beneath) }
            }
        }
        return edges
    }
}

/// Paths as keys that compare equal when they name one file (lexically: links are not followed).
struct PathKeys {
    let manifestDirectory: String

    /// The key of `path` (normalized by `GlobPattern.literalPath`, or a glob's literal prefix),
    /// relative to the directory whose key is `place` (`""`: the manifest's).
    func key(_ path: String, in place: String) -> String {
        if place.isEmpty, !path.hasPrefix("/"), !Self.hasParentReference(path) { return path }
        let base = place.isEmpty ? manifestDirectory : place.hasPrefix("/") ? place : manifestDirectory + "/" + place
        let absolute = FileText.absolute(path, relativeTo: base)
        if absolute == manifestDirectory { return "" }
        if manifestDirectory != "/", absolute.hasPrefix(manifestDirectory),
            absolute.utf8.dropFirst(manifestDirectory.utf8.count).first == UInt8(ascii: "/")
        {
            return String(absolute.utf8.dropFirst(manifestDirectory.utf8.count + 1))!
        }
        return absolute
    }

    /// Whether a path has a `..` component.
    static func hasParentReference(_ path: String) -> Bool {
        var dots = 0
        var atStart = true
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if dots == 2 { return true }
                dots = 0
                atStart = true
            } else if byte == UInt8(ascii: "."), atStart || dots > 0 {
                dots += 1
                atStart = false
            } else {
                dots = -1
                atStart = false
            }
        }
        return dots == 2
    }

    /// The directory a key is in: `""` for a relative key's top, `/` for an absolute one's.
    static func parent(of key: String) -> String? {
        guard !key.isEmpty, key != "/" else { return nil }
        guard let slash = key.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        if slash == key.utf8.startIndex { return "/" }
        return String(key[..<slash])
    }
}

/// The declared literal outputs of a graph's tasks, by key.
private struct OutputIndex {
    let keys: PathKeys
    /// The first task that declares each output, and the output as it declares it.
    private var writers: [String: (writer: Int, shown: String)] = [:]
    /// Every directory above a declared output: only a source that is one holds outputs.
    private var directories: Set<String> = []
    /// The outputs at or above each directory asked about (a source's), made on first asking.
    private var atOrAbove: [String: [(writer: Int, shown: String)]] = [:]
    /// The directory of the output added last, whose directories `directories` holds.
    private var lastDirectory = ""
    /// The last answer of `outputs(above:)`, by directory.
    private var lastAbove: (directory: String, outputs: [(writer: Int, shown: String)])?
    /// The outputs sorted by key's bytes, for the range under a directory; made on first need.
    private var sorted: [(key: String, writer: Int, shown: String)]?

    init(keys: PathKeys) { self.keys = keys }

    var isEmpty: Bool { writers.isEmpty }

    mutating func add(_ key: String, shown: String, writer: Int) {
        // One hash: a second writer of a path (an error of the run, `SharedOutputs`) is rare.
        if let first = writers.updateValue((writer, shown), forKey: key) {
            writers[key] = first
            return
        }
        // Outputs come a directory at a time, most often: its directories are known already.
        if let slash = key.utf8.lastIndex(of: UInt8(ascii: "/")), key[..<slash] == lastDirectory { return }
        var directory = PathKeys.parent(of: key)
        lastDirectory = directory ?? ""
        while let above = directory, !above.isEmpty, above != "/", directories.insert(above).inserted {
            directory = PathKeys.parent(of: above)
        }
    }

    /// Calls `found` with each task whose output `source` (a path or a glob, relative to the
    /// directory keyed `place`) reads, that output, and whether the source lies beneath it (an
    /// output directory) rather than naming or holding it.
    mutating func writers(of source: String, in place: String, _ found: (Int, String, Bool) -> Void) {
        if let literal = GlobPattern.literalPath(of: source) {
            let key = keys.key(literal, in: place)
            if let exact = writers[key] { found(exact.writer, exact.shown, false) }
            for output in outputs(above: key) { found(output.writer, output.shown, true) }
            if key.isEmpty || directories.contains(key) {
                forEach(beneath: key) { entry, _ in found(entry.writer, entry.shown, false) }
            }
            return
        }
        // A glob: its directories before the first wildcard, then the rest, matched beneath them.
        let absolute = source.hasPrefix("/")
        var parts = source.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        let firstWildcard = parts.firstIndex { $0.contains { "*?[\\".contains($0) } } ?? parts.count
        let prefix = (absolute ? "/" : "") + parts[..<firstWildcard].joined(separator: "/")
        parts.removeFirst(firstWildcard)
        let base = keys.key(GlobPattern.literalPath(of: prefix) ?? prefix, in: place)
        if let exact = writers[base] { found(exact.writer, exact.shown, true) }
        for output in outputs(above: base) { found(output.writer, output.shown, true) }
        guard base.isEmpty || directories.contains(base) else { return }
        let pattern = GlobPattern(parts.joined(separator: "/"))
        forEach(beneath: base) { entry, relative in
            if pattern.matches(relative) { found(entry.writer, entry.shown, false) }
        }
    }

    /// The outputs that are a directory above `key`: asked of sources one after another, most
    /// often in one directory, so the last answer is kept.
    private mutating func outputs(above key: String) -> [(writer: Int, shown: String)] {
        guard let slash = key.utf8.lastIndex(of: UInt8(ascii: "/")) else { return [] }
        if let last = lastAbove, key[..<slash] == last.directory { return last.outputs }
        guard let directory = PathKeys.parent(of: key) else { return [] }
        let found = outputs(atOrAbove: directory)
        lastAbove = (directory, found)
        return found
    }

    /// The outputs that are `directory` or a directory above it.
    private mutating func outputs(atOrAbove directory: String) -> [(writer: Int, shown: String)] {
        if directory.isEmpty || directory == "/" { return [] }
        if let known = atOrAbove[directory] { return known }
        var found = PathKeys.parent(of: directory).map { outputs(atOrAbove: $0) } ?? []
        if let own = writers[directory] { found.append(own) }
        atOrAbove[directory] = found
        return found
    }

    /// Each output beneath the directory keyed `directory` (`""`: every output inside the
    /// project), with its path relative to it.
    private mutating func forEach(
        beneath directory: String, _ body: ((key: String, writer: Int, shown: String), String) -> Void
    ) {
        if sorted == nil {
            sorted = writers.map { (key: $0.key, writer: $0.value.writer, shown: $0.value.shown) }
                .sorted { UTF8Text.precedes($0.key, $1.key) }
        }
        let entries = sorted!
        if directory.isEmpty {
            for entry in entries where !entry.key.hasPrefix("/") { body(entry, entry.key) }
            return
        }
        let prefix = directory == "/" ? "/" : directory + "/"
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if UTF8Text.precedes(entries[middle].key, prefix) { low = middle + 1 } else { high = middle }
        }
        for entry in entries[low...] {
            guard entry.key.utf8.starts(with: prefix.utf8) else { break }
            body(entry, String(entry.key.utf8.dropFirst(prefix.utf8.count))!)
        }
    }
}

/// A task's paths expanded as its up-to-date check expands them (`OperationBuilder`).
private struct TaskPaths {
    let keys: PathKeys
    let environment: EnvironmentBuilder
    private var templates = TemplateVariables()
    private var parsed: [String: Interpolation.Template] = [:]
    /// The variables of the task asked about last (its outputs, then its directory, ...).
    private var current: (id: Int, variables: TaskVariables)?
    /// The key of each task's working directory asked about, by id.
    private var places: [Int: String] = [:]

    init(keys: PathKeys, environment: EnvironmentBuilder) {
        self.keys = keys
        self.environment = environment
    }

    mutating func expand(_ text: String, of task: TaskSpec, id: Int) -> String {
        guard UTF8Text.contains(UInt8(ascii: "$"), in: text) else { return text }
        if current?.id != id { current = (id, templates.variables(of: task, environment)) }
        return current!.variables.expandChecked(text, parsed: &parsed)
    }

    /// The key of the directory the task's paths are relative to (`""`: the manifest's).
    mutating func place(of task: TaskSpec, id: Int) -> String {
        guard task.directory != nil || task.baseDirectory != nil else { return "" }
        if let known = places[id] { return known }
        let dir = task.directory.map { expand($0.value, of: task, id: id) }
        let directory = task.workingDirectory(expandedDir: dir) ?? "."
        let place = keys.key(GlobPattern.literalPath(of: directory) ?? directory, in: "")
        places[id] = place
        return place
    }
}

/// A first look that spares the index when no source can read an output: a plain relative path
/// (or a glob's literal start) reads only outputs in its own top directory, so when the sources'
/// top directories and the outputs' share none, there is no edge. (The 10,000-task no-op's
/// sources are all in `src/`, its outputs in `out/`: indexing every output cost 8 % of the run.)
/// Anything it cannot judge by bytes alone, a `${...}`, a `dir`, `..`, an absolute path, a
/// wildcard in the first name, says they may meet.
enum TopDirectories {
    static func mayMeet(_ tasks: [TaskSpec]) -> Bool {
        var sourceTops = Names()
        var outputTops = Names()
        for id in tasks.indices where tasks[id].each == nil {
            let hasOwnPlace = tasks[id].directory != nil || tasks[id].baseDirectory != nil
            for source in tasks[id].sources {
                guard !hasOwnPlace, sourceTops.insertTop(of: source.value) else { return true }
            }
            for output in tasks[id].outputs {
                guard !hasOwnPlace, outputTops.insertTop(of: output.value) else { return true }
            }
        }
        return !sourceTops.set.isDisjoint(with: outputTops.set)
    }

    /// The top directories seen. A name equal to the one inserted before it is not hashed again:
    /// tasks written one after another share their top directory (`src/...`), and hashing every
    /// one of 20,000 names was most of this check's cost.
    private struct Names {
        var set: Set<[UInt8]> = []
        var last: [UInt8] = []

        /// Inserts the first name of `path`; false when the bytes alone cannot say what it is.
        mutating func insertTop(of path: String) -> Bool {
            if let inserted = path.utf8.withContiguousStorageIfAvailable({ insert(topOf: $0) }) { return inserted }
            return Array(path.utf8).withUnsafeBufferPointer { insert(topOf: $0) }
        }

        private mutating func insert(topOf bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            guard let length = TopDirectories.topLength(of: bytes) else { return false }
            let top = UnsafeBufferPointer(rebasing: bytes[..<length])
            if top.elementsEqual(last) { return true }
            last = Array(top)
            set.insert(last)
            return true
        }
    }

    /// The length of the first name of a plain relative path or of a glob's literal start; `nil`
    /// when the bytes alone cannot say (`$`, `..`, `.`, absolute, a wildcard or an escape in it).
    fileprivate static func topLength(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = bytes.first, first != UInt8(ascii: "/"), first != UInt8(ascii: ".") else { return nil }
        var end: Int?
        var previous: UInt8 = 0
        for index in bytes.indices {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "$"): return nil
            // `a/../b` is not in `a`: two dots in a row anywhere (`x..y` too) leave it to the index.
            case UInt8(ascii: "."): if previous == UInt8(ascii: ".") { return nil }
            case UInt8(ascii: "/"): if end == nil { end = index }
            case UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "["), UInt8(ascii: "\\"):
                if end == nil { return nil }
            default: break
            }
            previous = byte
        }
        return end ?? bytes.count
    }
}
