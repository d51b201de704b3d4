import Glibc

/// Finds the program a directly-run command names, as `/bin/sh` would find it, remembering each
/// answer (one PATH search per distinct program and PATH).
///
/// Answers nil whenever the shell might do something else: a relative name with a slash, no PATH,
/// an empty or relative PATH entry reached before a match, a file that is neither an ELF binary
/// nor a `#!` script (the shell would run it as a shell script), or one it cannot read.
///
/// A program that appears earlier in PATH during a run is found as the shell would find it: the
/// candidates searched before the match are checked with `stat` on every lookup (a failed `stat`
/// each, about a microsecond). Not with inotify: closing an inotify instance that watches
/// anything waits for the kernel's fsnotify grace period, and a process closes it as it exits,
/// so the run's caller waited up to 16 ms longer for it (half of the runs that used it here).
final class ProgramLocator {
    private struct Found {
        let path: String
        /// Candidates searched before the match; re-checked on every use.
        let earlierCandidates: [String]
    }

    private var cache: [String: Found?] = [:]
    /// Whether each absolute path named was directly runnable when first seen. Kept for the run:
    /// if the file changes, the exec fails and the spawner falls back to the shell, which does
    /// what it always would; a file that becomes runnable is still run, by the shell.
    private var runnable: [String: Bool] = [:]

    /// The path to exec for `program` under `searchPath` (the job's PATH value), or nil.
    func locate(_ program: String, searchPath: String?) -> String? {
        if program.utf8.first == UInt8(ascii: "/") {
            if let known = runnable[program] { return known ? program : nil }
            let answer = Self.isDirectlyRunnable(program)
            runnable[program] = answer
            return answer ? program : nil
        }
        if program.utf8.contains(UInt8(ascii: "/")) { return nil }
        guard let searchPath else { return nil }
        let key = searchPath + "\u{0}" + program
        if let cached = cache[key] {
            guard let found = cached else { return nil }
            if !found.earlierCandidates.contains(where: Self.exists) { return found.path }
        }
        let found = search(program, in: searchPath)
        cache[key] = .some(found)
        return found?.path
    }

    private func search(_ program: String, in searchPath: String) -> Found? {
        var earlier: [String] = []
        for entry in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            // The shell would look in the working directory here: leave it to the shell.
            guard entry.utf8.first == UInt8(ascii: "/") else { return nil }
            let candidate = entry.utf8.last == UInt8(ascii: "/")
                ? String(entry) + program : String(entry) + "/" + program
            if Self.exists(candidate) {
                if Self.isExecutableFile(candidate) {
                    return Self.isDirectlyRunnable(candidate)
                        ? Found(path: candidate, earlierCandidates: earlier) : nil
                }
                // Not executable: the shell's exec fails there and it goes on searching.
            }
            earlier.append(candidate)
        }
        return nil
    }

    private static func exists(_ path: String) -> Bool {
        var information = stat()
        return stat(path, &information) == 0
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var information = stat()
        return stat(path, &information) == 0 && information.st_mode & S_IFMT == S_IFREG
            && access(path, X_OK) == 0
    }

    /// An executable regular file that starts with an ELF header or `#!`, so exec runs it
    /// rather than failing with ENOEXEC (where the shell would interpret it itself).
    static func isDirectlyRunnable(_ path: String) -> Bool {
        guard isExecutableFile(path) else { return false }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var header: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        let count = withUnsafeMutableBytes(of: &header) { read(descriptor, $0.baseAddress, 4) }
        if count >= 2 && header.0 == UInt8(ascii: "#") && header.1 == UInt8(ascii: "!") {
            return true
        }
        return count == 4 && header == (0x7F, UInt8(ascii: "E"), UInt8(ascii: "L"), UInt8(ascii: "F"))
    }
}
