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
