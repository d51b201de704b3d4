// A source that changes while its task runs: the commands may have read the old bytes, the new
// ones, or a mix, so the digest taken before they started says nothing of what they read. Were it
// recorded, an edit made mid-run and then put back would leave outputs made from the edit "up to
// date", and the output cache would file them under the old content for every other clone (found
// by an adversarial probe). So after a success each source is statted again (tasks that ran only):
// its digest stands only while the stat that vouched for it when it was hashed (read this run, or
// matched in the stat cache) is still the file's, which any write changes (ctime). Otherwise it is
// recorded untrusted (`ContentDigest.untrusted`, which no content matches), the task runs again
// next time, saying why, and the cache stores nothing of this run.

extension IncrementalRun {
    /// `sources` as a success records them: each one written since it was hashed made untrusted.
    func distrustingChanges(to sources: [FileDigest], of check: TaskCheck) -> [FileDigest] {
        var result = sources
        for (index, source) in sources.enumerated()
        where source.digest != .untrusted && source.digest != .directory && source.digest != .notAFile {
            let place = location(of: source.path, in: check.task)
            // Gone since: the next check finds it changed anyway.
            guard let now = files.status(place.opening, in: place.directory) else { continue }
            if let vouching = hasher.knownEntry(ofFileAt: place.absolute), vouching.status == now,
                vouching.digest == source.digest
            {
                continue
            }
            result[index] = FileDigest(path: source.path, digest: .untrusted)
        }
        return result
    }
}
