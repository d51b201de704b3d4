import OpsrunCache
import OpsrunCore

// Fuzzes the reading of a cache entry (docs/fuzzing.md): what a local or shared cache holds is
// hostile until checked. Any bytes must decode to nil or to an entry that a restore lets write
// only below its task's directory, whose inlined bytes are its digests', and that encodes and decodes back
// to itself; and, read as a depfile task's candidate list, to nil or to a list within its bounds
// that encodes back to the same bytes.

func checkCacheEntryInput(_ bytes: UnsafeRawBufferPointer) {
    checkCandidateList(Array(bytes))
    guard let entry = CacheEntry(decoding: Array(bytes)) else { return }
    for file in entry.files {
        // The decoder keeps any path; the restore's `OutputPlace` refuses one that is not plain
        // and relative, even when the task declares that very path as an output.
        let parts = file.path.split(separator: "/", omittingEmptySubsequences: false)
        let place = OutputPlace(projectRoot: "/project", taskDirectory: "/project/task", outputs: [file.path, "**"])
        if file.path.hasPrefix("/") || parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
            place.refusal(of: file.path) == nil
        {
            fatalError("a restore would write a path outside its task's directory: \(file.path)")
        }
        guard file.mode & ~0o7777 == 0 else { fatalError("a decoded entry has a mode beyond permission bits: \(file.mode)") }
    }
    for (blob, contents) in entry.allBlobs {
        guard Hex.isSHA256(blob.hash), blob.size >= 0 else { fatalError("a decoded entry names a blob that is not one: \(blob)") }
        if let contents, CacheEntry.Blob(of: contents) != blob {
            fatalError("a decoded entry holds bytes that are not its digest's: \(blob)")
        }
    }
    // Locally, with the bytes it holds: the same entry again.
    guard CacheEntry(decoding: entry.encoded(inlining: true)) == entry else {
        fatalError("an entry encoded with its bytes does not decode to itself")
    }
    // For a server, by digest only: the same entry without the bytes (an empty blob needs none).
    var named = entry
    for index in named.files.indices where named.files[index].blob.size > 0 { named.files[index].contents = nil }
    if let log = named.standardOutput, log.blob.size > 0 { named.standardOutput?.contents = nil }
    if let log = named.standardError, log.blob.size > 0 { named.standardError?.contents = nil }
    guard CacheEntry(decoding: entry.encoded(inlining: false)) == named else {
        fatalError("an entry encoded by digest does not decode to itself without its bytes")
    }
}

/// The same bytes as a depfile task's candidate list (docs/cache.md, "Depfile tasks"): one that
/// decodes is within every bound, each candidate valid, and it is the one encoding of itself (the
/// format has no slack: nothing a decoder skips, no second spelling of a count).
func checkCandidateList(_ bytes: [UInt8]) {
    guard let list = DepfileCandidates(decoding: bytes) else { return }
    guard !list.candidates.isEmpty, list.candidates.count <= DepfileCandidates.maximumCandidates,
        list.candidates.allSatisfy(DepfileCandidates.isValid)
    else { fatalError("a decoded candidate list is beyond its bounds") }
    guard list.encoded() == bytes else { fatalError("a decoded candidate list encodes to other bytes") }
}

#if OPSRUN_FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    checkCacheEntryInput(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
#else
/// Built without libFuzzer: runs each file given through the same check (a crash found, or a seed
/// corpus), so a finding can be replayed under a debugger; `--write-seeds DIR` writes a few valid
/// entries there (Fuzz/seeds/cache-entry holds what it wrote).
@main enum CacheEntryReplay {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "--write-seeds", arguments.count == 2 {
            writeSeeds(into: arguments.last!)
            return
        }
        for path in arguments {
            guard let bytes = FileText.readBytes(path) else { fatalError("cannot read \(path)") }
            bytes.withUnsafeBytes(checkCacheEntryInput)
            let list = DepfileCandidates(decoding: bytes) == nil ? "" : " (a candidate list)"
            print("\(CacheEntry(decoding: bytes) == nil ? "refused" : "decoded") \(path)\(list)")
        }
    }

    static func writeSeeds(into directory: String) {
        let script = Array("#!/bin/sh\necho hi\n".utf8)
        let log = Array("compiled 2 files\n".utf8)
        let big = CacheEntry.Blob(hash: String(repeating: "ab", count: 32), size: 1 << 20)
        let seeds: [(String, CacheEntry)] = [
            ("inlined", CacheEntry(
                files: [
                    .init(path: "dist/run.sh", blob: .init(of: script), mode: 0o755, contents: script),
                    .init(path: "dist/empty", blob: .init(of: []), mode: 0o644, contents: []),
                ],
                standardOutput: .init(blob: .init(of: log), contents: log))),
            ("by-digest", CacheEntry(
                files: [.init(path: "out/a.o", blob: big, mode: 0o644)],
                standardOutput: .init(blob: .init(of: log)), standardError: .init(blob: .init(of: []), contents: []))),
        ]
        for (name, entry) in seeds {
            for inlining in [true, false] where inlining || name == "inlined" {
                let path = "\(directory)/\(name)\(inlining ? "" : "-for-server").actionresult"
                guard AtomicFile.write(entry.encoded(inlining: inlining), to: path) else { fatalError("cannot write \(path)") }
                print("wrote \(path)")
            }
        }
    }
}
#endif
