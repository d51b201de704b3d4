import OpsrunCore
import OpsrunEngine
/// A compact binary encoding of a `Manifest`, every field and every source location included, so
/// that a manifest decoded from `.opsrun/manifest.cache` is indistinguishable from a parsed one and
/// diagnostics later in the run still point at file, line and column.
///
/// Written in the shared byte coding (`ByteWriter`): integers are LEB128 varints (signed ones
/// zigzag-encoded), strings a varint byte count then UTF-8.
/// A location is three varints: an index into a table of file names written once at the start (a
/// manifest's locations all name the same file), the line and the column.
///
/// A `deps` entry that names a task is written as that task's id, not its name: decoding shares the
/// task's name string instead of allocating another, and hands the ids to
/// `TaskGraph(manifest:dependencyIDs:)`, which then resolves no names. An entry naming no task (only
/// in a manifest the loader rejects, which is never cached, but the codec round-trips any value) is
/// written as its text.
///
/// Decoding checks every length, index and enumeration value against what was read so far: damaged
/// bytes give `nil`, never a crash or an out-of-range id.
public enum ManifestCodec {
    /// Bumped whenever the layout below changes.
    /// 1: the first layout. 2: one of `each` (with `instance`), `requires` or `depfile`, on three
    /// branches. 3: `requires`, `each` and `instance` together. 4: those and `depfile`.
    /// 5: includes (namespaces, included files, root references, each task's base directory), or
    /// on other branches `service` and `cleanup`, or `cache: false`. 6: includes and services.
    /// 7: all three. 8: an included manifest's `dotenv` files kept with its namespace.
    /// 9: `shell` and `pass_env`.
    public static let formatVersion: UInt32 = 9

    /// The encoding of `manifest`. `index` maps task names to ids (`TaskGraph.index`); built here
    /// when not given.
    public static func encode(_ manifest: Manifest, index: [String: Int]) -> [UInt8] {
        var writer = ManifestWriter(index: index)
        writer.write(manifest)
        return writer.finished()
    }

    /// The manifest, and for each task the id each `deps` entry names (`-1`: no task of that name).
    public static func decode(_ bytes: [UInt8]) -> (manifest: Manifest, dependencyIDs: [[Int]])? {
        bytes.withUnsafeBytes { decode($0) }
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer) -> (manifest: Manifest, dependencyIDs: [[Int]])? {
        var reader = ManifestReader(bytes)
        return try? reader.readManifest()
    }
}

/// Appends a manifest's fields in the order `ManifestReader` reads them.
private struct ManifestWriter {
    var writer = ByteWriter()
    let index: [String: Int]
    var files: [String: Int] = [:]
    var fileOrder: [String] = []

    init(index: [String: Int]) { self.index = index }

    /// The file table first, then the body that refers to it.
    mutating func finished() -> [UInt8] {
        var head = ByteWriter()
        head.varint(UInt64(fileOrder.count))
        for file in fileOrder { head.string(file) }
        return head.bytes + writer.bytes
    }

    mutating func write(_ m: Manifest) {
        // The manifest's own file goes first in the table, so its locations refer to entry 0.
        _ = fileNumber(m.file)
        string(m.file)
        string(m.directory)
        array(m.defaultTasks) { $0.located($1) }
        array(m.environment) { $0.entry($1) }
        array(m.dotenvFiles) { $0.located($1) }
        array(m.queues) { w, queue in
            w.string(queue.name)
            w.int(queue.maxConcurrent)
            w.location(queue.location)
        }
        int(m.tasks.count)
        for id in m.tasks.indices { task(m.tasks[id]) }
        array(m.namespaces) { w, namespace in
            w.string(namespace.name)
            w.string(namespace.file)
            w.string(namespace.directory)
            w.array(namespace.defaultTasks) { $0.string($1) }
            w.location(namespace.location)
            w.array(namespace.dotenvFiles) { $0.located($1) }
        }
        array(m.includedFiles) { w, file in
            w.string(file.path)
            w.string(file.displayName)
            w.optional(file.digest) { w, digest in w.array(digest) { $0.int(Int($1)) } }
        }
        array(m.rootReferences) { w, reference in
            w.string(reference.task)
            w.located(reference.reference)
        }
        array(m.passEnvironment) { $0.located($1) }
    }

    mutating func task(_ t: TaskSpec) {
        string(t.name)
        location(t.location)
        optional(t.description) { $0.string($1) }
        array(t.deps) { w, dep in
            if let id = w.index[dep.value] {
                w.int(id + 1)
            } else {
                w.int(0)
                w.string(dep.value)
            }
            w.location(dep.location)
        }
        array(t.commands) { $0.located($1) }
        optional(t.directory) { $0.located($1) }
        array(t.environment) { $0.entry($1) }
        array(t.sources) { $0.located($1) }
        array(t.outputs) { $0.located($1) }
        optional(t.queue) { $0.located($1) }
        signed(t.priority.rawValue)
        int(QualityOfService.allCases.firstIndex(of: t.qualityOfService)!)
        optional(t.timeoutMilliseconds) { $0.signed($1) }
        signed(t.retries)
        int((t.allowFailure ? 1 : 0) | (t.interactive ? 2 : 0) | (t.cache ? 0 : 4))
        array(t.requires) { $0.located($1) }
        optional(t.each) { w, each in
            w.location(each.location)
            w.array(each.variables) { w, variable in
                w.string(variable.name)
                w.location(variable.location)
                switch variable.values {
                case .glob(let pattern):
                    w.int(0)
                    w.located(pattern)
                case .list(let values):
                    w.int(1)
                    w.array(values) { $0.located($1) }
                }
            }
        }
        optional(t.instance) { w, instance in
            w.string(instance.task)
            w.array(instance.values) { w, entry in
                w.string(entry.name)
                w.string(entry.value)
            }
        }
        optional(t.depfile) { $0.located($1) }
        optional(t.baseDirectory) { $0.string($1) }
        optional(t.service) { w, service in
            w.location(service.location)
            w.optional(service.ready) { $0.located($1) }
            w.signed(service.readyTimeoutMilliseconds)
        }
        array(t.cleanup) { $0.located($1) }
        optional(t.shell) { w, shell in
            w.array(shell.words) { $0.string($1) }
            w.int(shell.passesTaskName ? 1 : 0)
        }
        array(t.passEnvironment) { $0.located($1) }
    }

    mutating func fileNumber(_ file: String) -> Int {
        // Nearly every location names the manifest itself: a comparison with the previous file
        // (identical storage compares at once) spares hashing the name once per location.
        if let last = fileOrder.last, last == file { return fileOrder.count - 1 }
        if let number = files[file] { return number }
        files[file] = fileOrder.count
        fileOrder.append(file)
        return fileOrder.count - 1
    }

    mutating func location(_ l: SourceLocation) {
        int(fileNumber(l.file))
        int(l.line)
        int(l.column)
    }

    mutating func located(_ l: Located<String>) {
        string(l.value)
        location(l.location)
    }

    mutating func entry(_ e: EnvironmentEntry) {
        string(e.name)
        string(e.value)
        location(e.location)
    }

    mutating func array<T>(_ items: [T], _ each: (inout ManifestWriter, T) -> Void) {
        int(items.count)
        for item in items { each(&self, item) }
    }

    mutating func optional<T>(_ value: T?, _ write: (inout ManifestWriter, T) -> Void) {
        guard let value else { return int(0) }
        int(1)
        write(&self, value)
    }

    mutating func string(_ s: String) { writer.string(s) }

    /// Zigzag, so small negative numbers stay short: 0, -1, 1, -2 → 0, 1, 2, 3.
    mutating func signed(_ value: Int) { writer.varint(UInt64(bitPattern: Int64((value << 1) ^ (value >> 63)))) }

    /// Only for values that cannot be negative (counts, lines, ids).
    mutating func int(_ value: Int) { writer.varint(UInt64(value)) }
}

/// The encoding does not hold a manifest (truncated, damaged or from another layout).
private struct Malformed: Error {}

/// Reads what `ManifestWriter` wrote, checking every bound.
private struct ManifestReader {
    var reader: ByteReader
    var files: [String] = []

    init(_ raw: UnsafeRawBufferPointer) { reader = ByteReader(raw) }

    mutating func readManifest() throws(Malformed) -> (manifest: Manifest, dependencyIDs: [[Int]]) {
        let fileCount = try count()
        files.reserveCapacity(fileCount)
        for _ in 0..<fileCount { files.append(try string()) }
        var m = Manifest(file: try string(), directory: try string())
        m.defaultTasks = try array { r throws(Malformed) in try r.located() }
        m.environment = try array { r throws(Malformed) in try r.entry() }
        m.dotenvFiles = try array { r throws(Malformed) in try r.located() }
        m.queues = try array { r throws(Malformed) in
            QueueSpec(name: try r.string(), maxConcurrent: try r.int(), location: try r.location())
        }
        let taskCount = try count()
        m.tasks.reserveCapacity(taskCount)
        var dependencyIDs: [[Int]] = []
        dependencyIDs.reserveCapacity(taskCount)
        for _ in 0..<taskCount {
            m.tasks.append(TaskSpec(name: try string(), location: try location()))
            // Fill in place: a finished `TaskSpec` appended would be copied on the way.
            dependencyIDs.append(try readTask(into: &m.tasks[m.tasks.count - 1]))
        }
        m.namespaces = try array { r throws(Malformed) in
            NamespaceSpec(
                name: try r.string(), file: try r.string(), directory: try r.string(),
                defaultTasks: try r.array { r throws(Malformed) in try r.string() }, location: try r.location(),
                dotenvFiles: try r.array { r throws(Malformed) in try r.located() })
        }
        m.includedFiles = try array { r throws(Malformed) in
            IncludedFile(
                path: try r.string(), displayName: try r.string(),
                digest: try r.optional { r throws(Malformed) in
                    try r.array { r throws(Malformed) -> UInt8 in
                        let byte = try r.int()
                        guard byte < 256 else { throw Malformed() }
                        return UInt8(byte)
                    }
                })
        }
        m.rootReferences = try array { r throws(Malformed) in
            RootReference(task: try r.string(), reference: try r.located())
        }
        m.passEnvironment = try array { r throws(Malformed) in try r.located() }
        guard reader.isAtEnd else { throw Malformed() }
        try Self.resolveNames(of: &m.tasks, ids: dependencyIDs)
        return (m, dependencyIDs)
    }

    /// Gives each `deps` entry written as an id the name of that task (a dependency may name a task
    /// further down, so only now are all names known).
    static func resolveNames(of tasks: inout [TaskSpec], ids: [[Int]]) throws(Malformed) {
        for task in tasks.indices {
            for (entry, id) in ids[task].enumerated() where id >= 0 {
                guard id < tasks.count else { throw Malformed() }
                tasks[task].deps[entry].value = tasks[id].name
            }
        }
    }

    /// The fields after name and location; returns the id each `deps` entry names, `-1` for one
    /// written as text.
    mutating func readTask(into t: inout TaskSpec) throws(Malformed) -> [Int] {
        t.description = try optional { r throws(Malformed) in try r.string() }
        let depCount = try count()
        var ids: [Int] = []
        if depCount > 0 {
            ids.reserveCapacity(depCount)
            t.deps.reserveCapacity(depCount)
        }
        for _ in 0..<depCount {
            let reference = try int()
            if reference == 0 {
                t.deps.append(Located(try string(), at: try location()))
                ids.append(-1)
            } else {
                // The name is filled in once every task is known (see `resolveNames`).
                t.deps.append(Located("", at: try location()))
                ids.append(reference - 1)
            }
        }
        t.commands = try array { r throws(Malformed) in try r.located() }
        t.directory = try optional { r throws(Malformed) in try r.located() }
        t.environment = try array { r throws(Malformed) in try r.entry() }
        t.sources = try array { r throws(Malformed) in try r.located() }
        t.outputs = try array { r throws(Malformed) in try r.located() }
        t.queue = try optional { r throws(Malformed) in try r.located() }
        guard let priority = QueuePriority(rawValue: try signed()) else { throw Malformed() }
        t.priority = priority
        let qos = try int()
        guard qos < QualityOfService.allCases.count else { throw Malformed() }
        t.qualityOfService = QualityOfService.allCases[qos]
        t.timeoutMilliseconds = try optional { r throws(Malformed) in try r.signed() }
        t.retries = try signed()
        let flags = try int()
        guard flags < 8 else { throw Malformed() }
        t.allowFailure = flags & 1 != 0
        t.interactive = flags & 2 != 0
        t.cache = flags & 4 == 0
        t.requires = try array { r throws(Malformed) in try r.located() }
        t.each = try optional { r throws(Malformed) in
            let location = try r.location()
            let variables = try r.array { r throws(Malformed) in
                let name = try r.string()
                let place = try r.location()
                let values: EachValues
                switch try r.int() {
                case 0: values = .glob(try r.located())
                case 1: values = .list(try r.array { r throws(Malformed) in try r.located() })
                default: throw Malformed()
                }
                return EachVariable(name: name, location: place, values: values)
            }
            return EachSpec(variables: variables, location: location)
        }
        t.instance = try optional { r throws(Malformed) in
            let task = try r.string()
            let values = try r.array { r throws(Malformed) -> (name: String, value: String) in
                (name: try r.string(), value: try r.string())
            }
            return TaskInstance(task: task, values: values)
        }
        t.depfile = try optional { r throws(Malformed) in try r.located() }
        t.baseDirectory = try optional { r throws(Malformed) in try r.string() }
        t.service = try optional { r throws(Malformed) in
            let location = try r.location()
            let ready = try r.optional { r throws(Malformed) in try r.located() }
            return ServiceSpec(location: location, ready: ready, readyTimeoutMilliseconds: try r.signed())
        }
        t.cleanup = try array { r throws(Malformed) in try r.located() }
        t.shell = try optional { r throws(Malformed) in
            let words = try r.array { r throws(Malformed) in try r.string() }
            let passesTaskName = try r.int()
            guard passesTaskName < 2 else { throw Malformed() }
            return ShellSpec(words: words, passesTaskName: passesTaskName == 1)
        }
        t.passEnvironment = try array { r throws(Malformed) in try r.located() }
        return ids
    }

    mutating func location() throws(Malformed) -> SourceLocation {
        let file = try int()
        guard file < files.count else { throw Malformed() }
        return SourceLocation(file: files[file], line: try int(), column: try int())
    }

    mutating func located() throws(Malformed) -> Located<String> {
        Located(try string(), at: try location())
    }

    mutating func entry() throws(Malformed) -> EnvironmentEntry {
        EnvironmentEntry(name: try string(), value: try string(), location: try location())
    }

    mutating func array<T>(_ each: (inout ManifestReader) throws(Malformed) -> T) throws(Malformed) -> [T] {
        let n = try count()
        guard n > 0 else { return [] }
        var items: [T] = []
        items.reserveCapacity(n)
        for _ in 0..<n { items.append(try each(&self)) }
        return items
    }

    mutating func optional<T>(_ read: (inout ManifestReader) throws(Malformed) -> T) throws(Malformed) -> T? {
        switch try int() {
        case 0: return nil
        case 1: return try read(&self)
        default: throw Malformed()
        }
    }

    mutating func string() throws(Malformed) -> String {
        guard let string = reader.string() else { throw Malformed() }
        return string
    }

    /// A count of items still to read: each takes at least one byte, so a larger count is damage
    /// (and would otherwise reserve absurd capacity).
    mutating func count() throws(Malformed) -> Int {
        guard let n = reader.count() else { throw Malformed() }
        return n
    }

    mutating func signed() throws(Malformed) -> Int {
        guard let z = reader.varint() else { throw Malformed() }
        return Int(Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1))))
    }

    mutating func int() throws(Malformed) -> Int {
        guard let v = reader.varint(), v <= UInt64(Int.max) else { throw Malformed() }
        return Int(v)
    }
}
