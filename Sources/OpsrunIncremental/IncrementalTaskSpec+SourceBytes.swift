// What a task reads, by size: the weight of a task whose duration was never recorded (a first
// clean build), so that the larger files start first (docs/manual/running.md). Asked only when
// something must run and only for such tasks, so a no-op run and a run whose durations are all
// known make no stat for it.

extension IncrementalTaskSpec {
    /// The total size in bytes of the files its declared `sources` name now (a directory counts
    /// for every file beneath it, as in the up-to-date check); `nil` when it declares none or none
    /// is there. Files a depfile listed are not counted: this is a guess before anything ran.
    public var sourceBytes: UInt64? {
        guard !sources.isEmpty else { return nil }
        let base = absoluteDirectory
        var total: UInt64 = 0
        var found = false
        func add(_ path: String) {
            guard let status = FileSystem.status(FileSystem.join(base, path)), status.kind == .regular else { return }
            total &+= UInt64(max(0, status.size))
            found = true
        }
        for text in sources {
            // The common case, one file: one stat, no pattern parsed.
            if let path = GlobPattern.literalPath(of: text) {
                guard let status = FileSystem.status(FileSystem.join(base, path)) else { continue }
                if status.kind == .directory {
                    for file in GlobPattern.everyFile(beneath: path).expand(in: base).paths { add(file) }
                } else if status.kind == .regular {
                    total &+= UInt64(max(0, status.size))
                    found = true
                }
                continue
            }
            for path in GlobPattern(text).expand(in: base).paths { add(path) }
        }
        return found ? total : nil
    }
}
