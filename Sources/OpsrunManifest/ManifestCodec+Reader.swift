// Reading `.opsrun/manifest.cache`'s payload back (see ManifestCodec.swift for the layout, which
// `ManifestWriter` writes in the same order): every bound checked, anything else `Malformed`.
import OpsrunCore
import OpsrunEngine

/// The encoding does not hold a manifest (truncated, damaged or from another layout).
struct Malformed: Error {}

/// Reads what `ManifestWriter` wrote, checking every bound.
struct ManifestReader {
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
