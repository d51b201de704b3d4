import CProcessShims
import Glibc

/// What the child of one job slot reads between clone and exec, while opsrun goes on (`cps_spawn`
/// does not wait for the exec): its C launch record (stack, request, failure before exec), and its
/// program's path, words, working directory and environment, copied here.
///
/// A slot spawns again only once its previous child has been reaped, so rewriting this memory then
/// can never change what a child is still reading. Kept from spawn to spawn: the text buffer grows
/// and stays, and the environments copy only the entries that changed (`OPSRUN_TASK`).
final class ChildLaunch {
    let record: OpaquePointer
    let directEnvironment = DirectEnvironmentCache()
    let shellEnvironment = EnvironmentBlock()
    /// `path`, `directory` and the words, each NUL-terminated, one after the other.
    private var text: UnsafeMutablePointer<CChar>
    private var textCapacity = 256
    /// The words' `argv`, pointing into `text`, NULL-terminated.
    private var words: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private var wordsCapacity = 8

    /// nil (errno set) when the stack cannot be mapped.
    init?() {
        guard let record = cps_launch_create() else { return nil }
        self.record = record
        text = .allocate(capacity: textCapacity)
        words = .allocate(capacity: wordsCapacity)
    }

    deinit {
        cps_launch_destroy(record)
        text.deallocate()
        words.deallocate()
    }

    /// The errno of what failed in the last child before its exec, 0 when it exec'd; once reaped.
    var failureBeforeExec: Int32 { cps_launch_error(record) }

    /// Copies `path`, `arguments` and `directory` in; the pointers stay valid until the next copy.
    func copy(path: String, arguments: [String], directory: String?) -> (
        path: UnsafePointer<CChar>, arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
        directory: UnsafePointer<CChar>?
    ) {
        var needed = path.utf8.count + 1 + (directory.map { $0.utf8.count + 1 } ?? 0)
        for word in arguments { needed += word.utf8.count + 1 }
        if needed > textCapacity {
            text.deallocate()
            textCapacity = max(needed, textCapacity * 2)
            text = .allocate(capacity: textCapacity)
        }
        if arguments.count + 1 > wordsCapacity {
            words.deallocate()
            wordsCapacity = max(arguments.count + 1, wordsCapacity * 2)
            words = .allocate(capacity: wordsCapacity)
        }
        var offset = 0
        let pathCopy = append(path, at: &offset)
        let directoryCopy = directory.map { append($0, at: &offset) }
        for (index, word) in arguments.enumerated() { words[index] = append(word, at: &offset) }
        words[arguments.count] = nil
        return (UnsafePointer(pathCopy), words, directoryCopy.map { UnsafePointer($0) })
    }

    private func append(_ string: String, at offset: inout Int) -> UnsafeMutablePointer<CChar> {
        let start = text + offset
        var string = string
        string.withUTF8 { bytes in
            if let base = bytes.baseAddress {
                UnsafeMutableRawPointer(start).copyMemory(from: base, byteCount: bytes.count)
            }
            start[bytes.count] = 0
            offset += bytes.count + 1
        }
        return start
    }
}
