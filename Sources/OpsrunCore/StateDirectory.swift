#if canImport(Glibc)
    import Glibc
#endif

/// `.opsrun/` beside the manifest: what opsrun keeps between runs (the task state, the manifest
/// cache). Its name and its making live here alone.
package enum StateDirectory {
    package static let name = ".opsrun"

    /// The `.opsrun` directory of the project whose manifest lives in `manifestDirectory`.
    package static func path(forManifestIn manifestDirectory: String) -> String {
        manifestDirectory + "/" + name
    }

    /// Creates `directory` if it is not there, and its `.gitignore` of `*` if that is not there (a
    /// first attempt may have stopped between the two): opsrun's files stay out of version control
    /// without touching the project's own `.gitignore`. `false` (with `errno` set) when the directory
    /// is neither there nor made.
    package static func make(_ directory: String) -> Bool {
        guard mkdir(directory, 0o755) == 0 || errno == EEXIST else { return false }
        let ignore = directory + "/.gitignore"
        if access(ignore, F_OK) != 0 { AtomicFile.write(Array("*\n".utf8), to: ignore) }
        return true
    }
}
