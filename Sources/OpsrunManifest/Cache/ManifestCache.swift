// `.opsrun/manifest.cache`: the parsed, validated manifest and its resolved dependency ids, so a
// run of a large manifest skips libyaml, the loader, name resolution and the cycle check (for
// 10,000 tasks, ~55 ms of a ~100 ms no-op run). Measured: without it a 10,000-task no-op took
// 1.62× as long, and a 100,000-task `opsrun -n` 1.40× (Benchmarks/README.md).
//
// Why it can never hand back a manifest other than the one parsing the file would give now: the
// header holds everything the parsed value depends on, and a file whose header differs in one byte
// is ignored (and rewritten):
//   - the manifest's text, by a 128-bit digest (two XXH64): not its size or mtime, which an edit
//     can leave unchanged;
//   - the manifest's display name and directory, which the manifest's locations and paths carry;
//   - the running executable (stat of /proc/self/exe: device, inode, size, mtime, ctime), so an
//     opsrun rebuilt with another loader or another encoding never trusts an old file, and the
//     libyaml it loaded, likewise;
//   - the magic and the format version.
// Nothing else goes into a Manifest but the included manifests (docs/manual/includes.md): the decoded manifest
// lists every file the loader read or looked for (`includedFiles`), each with its digest or its
// absence, and is used only while every one is still what it was. `dotenv:` files and the
// environment are read at run time, not by the loader. Then the payload's own digest rules out a torn
// or damaged file, and the decoder checks every bound besides.
//
// Only a manifest that loaded without a diagnostic (the loader has no warnings: everything it
// reports is an error) and without a cycle is stored, and only one of at least 64 KiB: smaller ones
// parse in about a millisecond, and a cache file would only clutter small projects.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OpsrunCore

/// The cache of one manifest's parsed form, keyed by everything that form depends on.
package struct ManifestCache {
    static let fileName = "manifest.cache"
    /// Manifests smaller than this are not cached.
    static let minimumManifestBytes = 64 << 10
    static let magic = Array("OPSRUNMC".utf8)
    /// The cache's own layout; the payload's is `ManifestCodec.formatVersion`.
    static let layoutVersion: UInt32 = 3
    /// The length of `digest`'s result.
    static let digestLength = 16

    /// `<manifest directory>/.opsrun`, shared with the state.
    let directory: String
    var path: String { directory + "/" + Self.fileName }
    /// Magic, versions and key: what a valid file starts with.
    let header: [UInt8]

    /// The cache for the manifest `bytes`, read from `source`; `nil` when it is too small to be
    /// worth one.
    package init?(source: ManifestSource, bytes: [UInt8]) {
        let count = bytes.count
        guard count >= Self.minimumManifestBytes else { return nil }
        directory = StateDirectory.path(forManifestIn: source.directory)
        var header = ByteWriter(bytes: Self.magic)
        header.uint32(Self.layoutVersion)
        header.uint32(ManifestCodec.formatVersion)
        // Without the code's identity a cache could outlive the code that wrote it: no cache then.
        guard Self.identity(of: "/proc/self/exe", to: &header),
            Self.identity(of: YAMLDocument.libraryFile, to: &header)
        else { return nil }
        header.string(source.displayName)
        header.string(source.directory)
        header.bytes += Self.digest(bytes)
        self.header = header.bytes
    }

    /// The cached manifest and dependency ids, when the file is there and its header matches.
    package func load() -> (manifest: Manifest, dependencyIDs: [[Int]])? {
        guard let bytes = FileText.readBytes(path), bytes.count >= header.count + 8 + Self.digestLength,
            bytes.starts(with: header)
        else { return nil }
        return bytes.withUnsafeBytes { raw -> (manifest: Manifest, dependencyIDs: [[Int]])? in
            var reader = ByteReader(raw, at: header.count)
            guard let length = reader.uint64() else { return nil }
            let checksum = raw[reader.index..<(reader.index + Self.digestLength)]
            let payload = UnsafeRawBufferPointer(rebasing: raw[(reader.index + Self.digestLength)...])
            guard length == UInt64(payload.count), Self.digest(payload).elementsEqual(checksum),
                let decoded = ManifestCodec.decode(payload), Self.unchanged(decoded.manifest.includedFiles)
            else { return nil }
            return decoded
        }
    }

    /// Whether every included file (or its absence) is as when the manifest was loaded.
    static func unchanged(_ files: [IncludedFile]) -> Bool {
        files.allSatisfy { file in
            guard let digest = file.digest else { return !FileText.isFile(file.path) && !FileText.isDirectory(file.path) }
            guard let bytes = FileText.readBytes(file.path) else { return false }
            return Self.digest(bytes) == digest
        }
    }

    /// `store` on a thread of `work`, so encoding (about 80 ms for 100,000 tasks) overlaps the run
    /// instead of delaying it; `work`'s owner joins it before the process exits.
    package func store(_ manifest: Manifest, index: [String: Int], on work: BackgroundWork) {
        work.start { store(manifest, index: index) }
    }

    /// Writes the cache for a manifest that loaded cleanly and is acyclic. A failure is ignored:
    /// the cache only saves time, and a project in a read-only place still runs.
    package func store(_ manifest: Manifest, index: [String: Int]) {
        let payload = ManifestCodec.encode(manifest, index: index)
        var file = ByteWriter(bytes: header)
        file.bytes.reserveCapacity(header.count + 8 + Self.digestLength + payload.count)
        file.uint64(UInt64(payload.count))
        file.bytes += Self.digest(payload)
        file.bytes += payload
        guard StateDirectory.make(directory) else { return }
        AtomicFile.write(file.bytes, to: path)
    }

    /// The digest of the manifest, of each file it included, and of the payload (see the top).
    static func digest(_ bytes: [UInt8]) -> [UInt8] { XXHash64.digest128(bytes) }

    static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] { XXHash64.digest128(bytes) }
}

extension ManifestCache {
    /// Appends device, inode, size, mtime and ctime of the file at `path` (following links);
    /// `false` when it cannot be seen.
    fileprivate static func identity(of path: String, to header: inout ByteWriter) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        header.uint64(UInt64(info.st_dev))
        header.uint64(UInt64(info.st_ino))
        header.uint64(UInt64(info.st_size))
        header.uint64(UInt64(bitPattern: Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec)))
        header.uint64(UInt64(bitPattern: Int64(info.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_ctim.tv_nsec)))
        return true
    }
}
