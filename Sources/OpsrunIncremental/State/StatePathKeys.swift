// The state names files relative to the project (the directory holding `.opsrun`), not by absolute
// path: `src/a.c` rather than `/home/me/work/project/src/a.c`. That is most of a record's bytes
// saved, and it lets the snapshot keep a file's stat inside the record of the task that names it:
// the file's key is the task's directory key joined with the path the record already holds, so no
// path is stored twice. The FileHasher still asks by absolute path; `keyRange` strips the project
// prefix from its bytes without making a string. A path outside the project keeps its absolute form.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Converts between absolute paths and the state's project-relative keys.
struct StatePathKeys {
    /// The project directory, absolute; empty when there is none (then keys are absolute paths).
    let project: String
    private let prefix: [UInt8]

    /// Keys relative to the parent of the state directory `stateDirectory`.
    init(stateDirectory: String) {
        var project = Substring(stateDirectory)
        while project.utf8.last == UInt8(ascii: "/") { project = project.dropLast() }
        if let slash = project.utf8.lastIndex(of: UInt8(ascii: "/")) {
            project = project[..<slash]
        } else {
            project = ""
        }
        while project.utf8.last == UInt8(ascii: "/") { project = project.dropLast() }
        self.project = String(project)
        prefix = project.isEmpty ? [] : Array(project.utf8) + [UInt8(ascii: "/")]
    }

    /// The key of an absolute file path.
    func key(of path: String) -> String {
        var path = path
        return path.withUTF8 { bytes in
            let range = keyRange(of: UnsafeRawBufferPointer(bytes))
            return String(decoding: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[range]), as: UTF8.self)
        }
    }

    /// The part of an absolute path's bytes that is its key. Two different paths never share a key:
    /// a stripped key never starts with "/" (`<project>//x` keeps its whole form), a kept one does.
    func keyRange(of bytes: UnsafeRawBufferPointer) -> Range<Int> {
        if !prefix.isEmpty, bytes.count > prefix.count, bytes[prefix.count] != UInt8(ascii: "/"),
           prefix.withUnsafeBytes({ memcmp($0.baseAddress!, bytes.baseAddress!, $0.count) == 0 }) {
            return prefix.count..<bytes.count
        }
        return 0..<bytes.count
    }

    /// The absolute path a file key stands for.
    func absolute(of key: String) -> String { FileSystem.join(project, key) }

    /// The key of a task's absolute working directory: empty for the project itself.
    func directoryKey(of directory: String) -> String {
        directory == project ? "" : key(of: directory)
    }

    /// The key of `path` as a task running in the directory with key `directory` names it, when it
    /// is simply `directory/path` (both relative, the common case), else `nil`: only such a file's
    /// stat is kept inside the task's record, since its key is made without any string work.
    /// Equal to `key(of: FileSystem.join(<that directory>, path))`, which is how the FileHasher asks.
    func embeddedKey(directory: String, path: String) -> String? {
        if path.utf8.first == UInt8(ascii: "/") || directory.utf8.first == UInt8(ascii: "/") { return nil }
        return directory.isEmpty ? path : FileSystem.join(directory, path)
    }
}
