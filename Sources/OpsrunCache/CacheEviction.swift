#if canImport(Glibc)
import Glibc
#endif

/// Keeps the local cache within its size (`--cache-size`): when it holds more, the files used
/// longest ago (by modification time, which every use sets) go first, down to 90 % of the limit so
/// that the next runs do not each evict a little. An entry whose blob was evicted is a miss.
enum CacheEviction {
    /// A trim scans the whole cache, so it runs at most this often (by the time of `root/trimmed`):
    /// a large cache is not listed after every run, and may outgrow its bound by what the runs of
    /// these minutes store.
    static let intervalSeconds = 600

    /// Trims `root` if the last trim is older than `intervalSeconds` (or there was none).
    static func trimIfDue(root: String, limit: UInt64) {
        let stamp = root + "/trimmed"
        var info = stat()
        if stat(stamp, &info) == 0, Int(time(nil)) - Int(info.st_mtim.tv_sec) < intervalSeconds { return }
        trim(root: root, limit: limit)
        let descriptor = open(stamp, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        if descriptor >= 0 { close(descriptor) }
        utimensat(AT_FDCWD, stamp, nil, 0)
    }

    /// Evicts from `root`'s `ac/` and `cas/`; leftovers in `tmp/` older than an hour (a run killed
    /// between writing and renaming) go too.
    static func trim(root: String, limit: UInt64) {
        var files: [(path: String, size: UInt64, time: Int)] = []
        var total: UInt64 = 0
        let now = Int(time(nil))
        for directory in ["ac", "cas", "tmp"] {
            let base = root + "/" + directory
            guard let handle = opendir(base) else { continue }
            defer { closedir(handle) }
            let descriptor = dirfd(handle)
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                var info = stat()
                guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                let path = base + "/" + name
                if directory == "tmp" {
                    if now - Int(info.st_mtim.tv_sec) > 3600 { unlink(path) }
                    continue
                }
                let size = UInt64(max(0, info.st_blocks)) * 512
                total += size
                files.append((path, size, Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)))
            }
        }
        guard total > limit else { return }
        let target = limit / 10 * 9
        for file in files.sorted(by: { $0.time < $1.time }) {
            guard total > target else { break }
            if unlink(file.path) == 0 { total -= min(total, file.size) }
        }
    }
}
