#if canImport(Glibc)
import Glibc
#endif
import OpsrunCore

/// Where one `--report`, `--junit` or `--trace` writes (docs/manual/fitting-in.md): standard output for `-`,
/// otherwise a regular file, reached through any symbolic links on the way, which are followed and
/// never replaced. A device, a FIFO, a socket or a directory is refused: renaming a finished report
/// over `/dev/null` (as root) or a FIFO would replace it with a file.
enum ReportPath: Equatable {
    case standardOutput
    /// The file, its folder without links, `.` or `..` (so two spellings of one file compare
    /// equal); it may not exist yet. The report is made in that folder and renamed over it.
    case file(String)

    /// Links followed before giving up, as the kernel's limit for one path (`ELOOP`).
    static let maximumLinks = 40

    /// `given` (relative to `directory`), or why no report can be written there.
    static func resolve(_ given: String, relativeTo directory: String) -> Result<ReportPath, Problem> {
        if given == "-" { return .success(.standardOutput) }
        if given.hasSuffix("/") { return .failure(.kind("a directory")) }
        // Joined, not normalized: the kernel resolves `link/..` as a shell's redirection would.
        var path = given.hasPrefix("/") ? given : directory + "/" + given
        var links = 0
        while true {
            var info = stat()
            if lstat(path, &info) != 0 {
                // Not there yet (a link may point at a file to be made): its folder must exist.
                guard errno == ENOENT else { return .failure(.system(errno)) }
                break
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFLNK:
                links += 1
                guard links <= maximumLinks, let target = readLink(path) else {
                    return .failure(.system(links > maximumLinks ? ELOOP : errno))
                }
                path = target.hasPrefix("/") ? target : folder(of: path) + "/" + target
                continue
            case S_IFDIR: return .failure(.kind("a directory"))
            case S_IFIFO: return .failure(.kind("a FIFO"))
            case S_IFSOCK: return .failure(.kind("a socket"))
            default: return .failure(.kind("a device"))
            }
            break
        }
        let name = path[path.index(after: path.lastIndex(of: "/")!)...]
        guard let real = FileText.realPath(folder(of: path)) else { return .failure(.system(errno)) }
        return .success(.file(real == "/" ? "/" + name : real + "/" + name))
    }

    /// Why a path cannot take a report, worded after "cannot write it: ".
    enum Problem: Error {
        case system(Int32)
        case kind(String)

        var description: String {
            switch self {
            case .system(let number): String(cString: strerror(number))
            case .kind("a directory"): "it is a directory"
            case .kind(let kind): "it is \(kind); a report is a regular file, or - for standard output"
            }
        }
    }

    /// The folder of an absolute `path` as written ("/" for a file at the root).
    private static func folder(of path: String) -> String {
        let slash = path.lastIndex(of: "/")!
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// What the symbolic link at `path` points to; `nil` with `errno` set.
    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
