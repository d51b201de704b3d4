#if canImport(Glibc)
import Glibc
#endif

/// The files `--report`, `--junit` and `--trace` asked for (SPEC §8).
///
/// Each is created before the first task starts, as a temporary file beside the one named, so a
/// path that cannot be written is a usage error while nothing has run yet; when the run has ended,
/// the text goes in and the temporary file is renamed over the name. A reader never sees half a
/// report, and a run killed outright leaves the previous report (and a `.tmp` file) behind.
public final class ReportFiles {
    public enum Kind: String, CaseIterable, Sendable {
        case report = "--report"
        case junit = "--junit"
        case trace = "--trace"
    }

    struct Pending {
        var kind: Kind
        var path: String
        var temporary: String
        var descriptor: Int32
    }

    private var pending: [Pending] = []

    /// Whether `--junit` is among them: only it needs the tails of task output.
    public var wantsOutputTails: Bool { pending.contains { $0.kind == .junit } }
    public var isEmpty: Bool { pending.isEmpty }

    /// Creates the temporary file of each path given, relative to `directory`; throws the first
    /// that cannot be created, after removing the others.
    public init(_ paths: [(Kind, String)], relativeTo directory: String) throws(Diagnostic) {
        for (kind, given) in paths {
            let path = FileText.absolute(given, relativeTo: directory)
            let temporary = "\(path).\(getpid()).tmp"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                abandon()
                throw Diagnostic(at: nil, "\(kind.rawValue) \(given): cannot write it: \(reason)")
            }
            pending.append(Pending(kind: kind, path: path, temporary: temporary, descriptor: descriptor))
        }
    }

    deinit { abandon() }

    /// Writes each file and renames it into place. Returns a message per file that could not be
    /// written (its temporary file is removed).
    public func write(_ run: FinishedRun) -> [String] {
        var problems: [String] = []
        for file in pending {
            let text: String
            switch file.kind {
            case .report: text = RunRecordJSON.render(run)
            case .junit: text = JUnitXML.render(run)
            case .trace: text = ChromeTrace.render(run)
            }
            let written = FileText.writeAll(file.descriptor, Array(text.utf8))
            let failure = errno
            // Closed once whatever happened: a second close could hit a number reused meanwhile.
            let closed = close(file.descriptor) == 0
            if written && closed && rename(file.temporary, file.path) == 0 { continue }
            // errno is the close's or the rename's when the write went through.
            let reason = String(cString: strerror(written ? errno : failure))
            unlink(file.temporary)
            problems.append("cannot write \(file.kind.rawValue) \(file.path): \(reason)")
        }
        pending = []
        return problems
    }

    /// Removes every temporary file not yet written (a run that never happened).
    public func abandon() {
        for file in pending {
            close(file.descriptor)
            unlink(file.temporary)
        }
        pending = []
    }
}
