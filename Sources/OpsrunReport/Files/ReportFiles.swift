#if canImport(Glibc)
import Glibc
#endif
import OpsrunCore

/// The files `--report`, `--junit` and `--trace` asked for (docs/manual/output-and-reports.md).
///
/// `-` is standard output, written after everything else the run prints (which then goes to
/// standard error, so that `--report - | jq` reads the report alone); only one report may go there.
/// Any other path is a regular file, reached through symbolic links (see `ReportPath`).
///
/// Each is created before the first task starts, so a path that cannot be written is a usage
/// error while nothing has run yet. It is created unnamed (`O_TMPFILE`) in the folder it goes to:
/// tasks listing that folder do not see it, and a run killed outright leaves nothing behind. When
/// the run has ended, the text goes in, the file gets a temporary name and is renamed over the one
/// asked for, so a reader never sees half a report. On a file system without unnamed files it is
/// `FILE.PID.tmp` from the start.
public final class ReportFiles {
    public enum Kind: String, Sendable {
        case report = "--report"
        case junit = "--junit"
        case trace = "--trace"
    }

    private struct Pending {
        var kind: Kind
        /// The file (its folder resolved), or "-" for standard output.
        var path: String
        /// -1 for standard output.
        var descriptor: Int32
        /// Set when the file could not be created unnamed.
        var namedTemporary: String?

        var temporaryName: String { namedTemporary ?? "\(path).\(getpid()).tmp" }
        var toStandardOutput: Bool { descriptor < 0 }
    }

    private var pending: [Pending] = []
    private let standardOutput: FileDescriptorWriter

    /// Whether `--junit` is among them: only it needs the tails of task output.
    public var wantsOutputTails: Bool { pending.contains { $0.kind == .junit } }

    /// Whether one of them is `-`: the run's own output then goes to standard error.
    public var writesToStandardOutput: Bool { pending.contains { $0.toStandardOutput } }

    /// Creates the file of each path given, relative to `directory`; throws for the first that
    /// cannot be created, or that another one names too, after removing those already created.
    public init(
        _ paths: [(Kind, String)], relativeTo directory: String,
        standardOutput: FileDescriptorWriter
    ) throws(Diagnostic) {
        self.standardOutput = standardOutput
        for (kind, given) in paths {
            var problem: String?
            switch ReportPath.resolve(given, relativeTo: directory) {
            case .failure(let reason):
                problem = "\(kind.rawValue) \(given): cannot write it: \(reason.description)"
            case .success(.standardOutput):
                if let other = pending.first(where: { $0.toStandardOutput }) {
                    problem = "\(other.kind.rawValue) and \(kind.rawValue) both name standard output (-); only one report can go there"
                } else {
                    pending.append(Pending(kind: kind, path: "-", descriptor: -1))
                }
            case .success(.file(let path)):
                if let other = pending.first(where: { $0.path == path }) {
                    problem = "\(other.kind.rawValue) and \(kind.rawValue) name the same file, \(given)"
                } else {
                    switch Self.create(path) {
                    case .success(let file):
                        pending.append(Pending(kind: kind, path: path, descriptor: file.descriptor, namedTemporary: file.named))
                    case .failure(let error):
                        problem = "\(kind.rawValue) \(given): cannot write it: \(error.description)"
                    }
                }
            }
            if let problem {
                abandon()
                throw Diagnostic(at: nil, problem)
            }
        }
    }

    deinit { abandon() }

    /// `O_TMPFILE`, which Glibc's Swift module does not export: `__O_TMPFILE | O_DIRECTORY`, where
    /// `__O_TMPFILE` is the same on x86-64 and AArch64.
    private static let unnamedFileFlag: Int32 = 0o20_000_000 | O_DIRECTORY

    struct SystemError: Error {
        let number: Int32
        var description: String { String(cString: strerror(number)) }
    }

    /// An unnamed file in `path`'s folder, or else `path.PID.tmp`.
    private static func create(_ path: String) -> Result<(descriptor: Int32, named: String?), SystemError> {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let unnamed = open(folder.isEmpty ? "/" : folder, unnamedFileFlag | O_WRONLY | O_CLOEXEC, 0o644)
        if unnamed >= 0 {
            // It is named at the end through /proc/self/fd; without /proc (some chroots) a named
            // file from the start, rather than a report lost after the run.
            if access("/proc/self/fd/\(unnamed)", F_OK) == 0 { return .success((unnamed, nil)) }
            close(unnamed)
        } else if errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL {
            // Only a file system (or kernel) without unnamed files falls back; ENOENT, EACCES and
            // the like are the answer for a named file too.
            return .failure(SystemError(number: errno))
        }
        let named = "\(path).\(getpid()).tmp"
        let descriptor = open(named, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        return descriptor >= 0 ? .success((descriptor, named)) : .failure(SystemError(number: errno))
    }

    /// Writes each file and puts it in place. Returns a message per file that could not be
    /// written (nothing of it is left behind).
    public func write(_ run: FinishedRun) -> [String] {
        var problems: [String] = []
        for file in pending {
            let text: String
            switch file.kind {
            case .report: text = RunRecordJSON.render(run)
            case .junit: text = JUnitXML.render(run)
            case .trace: text = ChromeTrace.render(run)
            }
            if file.toStandardOutput {
                if !FileText.writeAll(standardOutput.fileDescriptor, Array(text.utf8)) {
                    problems.append("cannot write \(file.kind.rawValue) to standard output: \(SystemError(number: errno).description)")
                }
                continue
            }
            var done = FileText.writeAll(file.descriptor, Array(text.utf8))
            if done && file.namedTemporary == nil { done = Self.name(file.descriptor, file.temporaryName) }
            let failure = SystemError(number: errno)
            // Closed once whatever happened: a second close could hit a number reused meanwhile.
            let closed = close(file.descriptor) == 0
            if done && closed && rename(file.temporaryName, file.path) == 0 { continue }
            let reason = done ? SystemError(number: errno).description : failure.description
            unlink(file.temporaryName)
            problems.append("cannot write \(file.kind.rawValue) \(file.path): \(reason)")
        }
        pending = []
        return problems
    }

    /// Gives an unnamed file the name `temporary` (replacing a leftover of a killed run that had
    /// this process id), through its `/proc/self/fd` link.
    private static func name(_ descriptor: Int32, _ temporary: String) -> Bool {
        let link = "/proc/self/fd/\(descriptor)"
        if linkat(AT_FDCWD, link, AT_FDCWD, temporary, AT_SYMLINK_FOLLOW) == 0 { return true }
        guard errno == EEXIST, unlink(temporary) == 0 else { return false }
        return linkat(AT_FDCWD, link, AT_FDCWD, temporary, AT_SYMLINK_FOLLOW) == 0
    }

    /// Closes and removes every file not yet written (a run that never happened).
    public func abandon() {
        for file in pending where !file.toStandardOutput {
            close(file.descriptor)
            if let named = file.namedTemporary { unlink(named) }
        }
        pending = []
    }
}
