#if canImport(Glibc)
import Glibc
#endif
import OpsrunCore
import OpsrunIncremental

/// The local cache (docs/manual/cache.md): `ac/<key>` holds an entry (an `ActionResult`), `cas/<sha256>` a blob
/// named by its content. Every file is written under a temporary name in `tmp/` and renamed into
/// place, so a reader (another opsrun at the same time included) sees a whole file or none, and
/// two writers of one name write the same bytes. Reading an entry or a blob sets its time, which
/// eviction takes as its last use.
package final class LocalCacheStore {
    package let root: String
    private var madeDirectories = false
    private var temporaryCount = 0
    /// Whether blobs were renamed into `cas/` since it was last synced: an entry that names them
    /// is renamed in only after they are durable.
    private var unsyncedBlobs = false

    package init(root: String) {
        self.root = root
    }

    func entryPath(_ key: CacheKey) -> String { root + "/ac/" + key.hex }
    func blobPath(_ hash: String) -> String { Self.blobPath(hash, root: root) }
    static func blobPath(_ hash: String, root: String) -> String { root + "/cas/" + hash }

    /// The entry's bytes, or `nil` when there is none, or when its seal does not check out.
    package func entry(_ key: CacheKey) -> [UInt8]? {
        let path = entryPath(key)
        guard let bytes = FileText.readBytes(path), let entry = Self.unsealed(bytes, key: key) else { return nil }
        Self.touch(path)
        return entry
    }

    /// A local entry ends with a field no reader of `ActionResult`s knows (number 15000, 32 bytes):
    /// the SHA-256 of its key and of the bytes before it. An entry cut short (a crash before the
    /// disk had it all: entries are not synced, see `storeEntry`), damaged, or moved under another
    /// key is then no entry; cut at a field's end, it would otherwise read as one with fewer files.
    private static let sealTag: [UInt8] = [0xc2, 0xa9, 0x07, 32]

    static func sealed(_ bytes: [UInt8], key: CacheKey) -> [UInt8] {
        bytes + sealTag + ContentDigest.of(Array(key.hex.utf8) + bytes).bytes
    }

    static func unsealed(_ bytes: [UInt8], key: CacheKey) -> [UInt8]? {
        let sealSize = sealTag.count + 32
        guard bytes.count >= sealSize else { return nil }
        let end = bytes.count - sealSize
        guard bytes[end..<end + sealTag.count].elementsEqual(sealTag) else { return nil }
        let entry = Array(bytes[..<end])
        guard ContentDigest.of(Array(key.hex.utf8) + entry).bytes.elementsEqual(bytes[(end + sealTag.count)...]) else {
            return nil
        }
        return entry
    }

    /// Whether there is an entry under `key` (read, and so marked used, by `entry` only).
    func hasEntry(_ key: CacheKey) -> Bool {
        access(entryPath(key), F_OK) == 0
    }

    /// Whether the blob is there (its content is checked when it is read); marks it used.
    func hasBlob(_ blob: CacheEntry.Blob) -> Bool {
        guard Self.holds(blob, root: root) else { return false }
        Self.touch(blobPath(blob.hash))
        return true
    }

    /// `hasBlob` without marking it used, for any thread: only the store's `root` is read.
    static func holds(_ blob: CacheEntry.Blob, root: String) -> Bool {
        var info = stat()
        return stat(blobPath(blob.hash, root: root), &info) == 0 && Int64(info.st_size) == blob.size
    }

    /// The blob's bytes when they are what its name says.
    func readBlob(_ blob: CacheEntry.Blob) -> [UInt8]? {
        BlobFile.read(blobPath(blob.hash), expecting: blob)
    }

    /// Copies the file at `path` in as a blob; `nil` when it cannot be read or its content is not
    /// `expected` (it changed since it was hashed). A present blob is reused only when its content
    /// is still its name's (a power loss may have emptied it); else it is replaced.
    func storeBlob(copying path: String, expected hash: String) -> CacheEntry.Blob? {
        if let present = BlobFile.blob(at: blobPath(hash)), present.hash == hash {
            Self.touch(blobPath(hash))
            return present
        }
        guard let temporary = temporaryPath() else { return nil }
        guard let blob = BlobFile.copy(from: path, to: temporary, mode: 0o644, durable: true) else { return nil }
        guard blob.hash == hash, rename(temporary, blobPath(hash)) == 0 else {
            unlink(temporary)
            return nil
        }
        unsyncedBlobs = true
        return blob
    }

    /// Stores `bytes` as a blob (a log, or a blob fetched from a server, already checked); a
    /// present one is kept only when its content is its name's.
    @discardableResult
    func storeBlob(_ bytes: [UInt8], hash: String) -> Bool {
        if let present = BlobFile.blob(at: blobPath(hash)), present == CacheEntry.Blob(hash: hash, size: Int64(bytes.count)) {
            Self.touch(blobPath(hash))
            return true
        }
        guard let temporary = temporaryPath(), BlobFile.write(bytes, to: temporary, mode: 0o644, durable: true) else {
            return false
        }
        guard rename(temporary, blobPath(hash)) == 0 else {
            unlink(temporary)
            return false
        }
        unsyncedBlobs = true
        return true
    }

    /// Stores an entry, sealed with its key, once the blobs stored before it are durable. The entry
    /// itself is not synced (one `fsync` per stored task would cost a cold run most of what storing
    /// costs): one a crash damages fails its seal and is a miss.
    @discardableResult
    func storeEntry(_ bytes: [UInt8], for key: CacheKey) -> Bool {
        if unsyncedBlobs {
            guard BlobFile.syncDirectory(root + "/cas") else { return false }
            unsyncedBlobs = false
        }
        guard let temporary = temporaryPath(), BlobFile.write(Self.sealed(bytes, key: key), to: temporary, mode: 0o644)
        else { return false }
        guard rename(temporary, entryPath(key)) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    /// A fresh name in `tmp/`, the directories made the first time.
    private func temporaryPath() -> String? {
        if !madeDirectories {
            for directory in ["ac", "cas", "tmp"] where Directories.make(root + "/" + directory) != nil {
                return nil
            }
            madeDirectories = true
        }
        temporaryCount += 1
        return "\(root)/tmp/\(getpid())-\(temporaryCount)"
    }

    /// Why the cache cannot live in `root` (`is not a directory`, `cannot be written`), making it
    /// when missing; `nil` when it can.
    static func problem(root: String) -> String? {
        var info = stat()
        guard stat(root, &info) == 0 else {
            guard let failure = Directories.make(root) else { return nil }
            return "cannot be made (\(failure.path): \(failure.reason))"
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "is not a directory" }
        // Making what the store writes in is the test: `access` says yes to root, whom an
        // immutable or read-only-mounted directory refuses all the same.
        guard access(root, W_OK | X_OK) == 0, ["ac", "cas", "tmp"].allSatisfy({ Directories.make(root + "/" + $0) == nil })
        else { return "cannot be written" }
        return nil
    }

    /// Marks a file as used now (its modification time: access times are often not kept).
    static func touch(_ path: String) {
        utimensat(AT_FDCWD, path, nil, 0)
    }
}
