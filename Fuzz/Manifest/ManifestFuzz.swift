#if canImport(Glibc)
import Glibc
#endif
import OpsrunCore
import OpsrunManifest

// Fuzzes what reads a manifest (docs/fuzzing.md): any bytes, as a Tasksfile.yaml, as a dotenv
// file, and as the manifest cache's bytes. None may crash; a manifest that loads must come back
// from the manifest cache's codec unchanged, and one that does not must say why.

/// Where `includes:` are looked for: an empty directory made once, so that an input reads no file
/// but the ones it names itself.
let emptyDirectory: String = {
    var template = Array("/tmp/opsrun-fuzz-manifest.XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("cannot make a temporary directory") }
    // Removed when the process exits (libFuzzer, too, ends a run with exit).
    atexit { _ = rmdir(emptyDirectory) }
    return String(cString: made)
}()

func checkManifestInput(_ bytes: UnsafeRawBufferPointer) {
    let text = String(decoding: bytes, as: UTF8.self)
    checkManifest(text)
    // A dotenv file: names from A to M are set in opsrun's environment, the others are not, so
    // that `${NAME}` expands both ways.
    _ = try? DotenvFile.parse(text, file: ".env") { name in
        name.utf8.first.map { (UInt8(ascii: "A")...UInt8(ascii: "M")).contains($0) } == true ? "set-\(name)" : nil
    }
    // `.opsrun/manifest.cache` is read as it is found: damaged bytes give nil, never a crash.
    _ = ManifestCodec.decode(bytes)
}

func checkManifest(_ text: String) {
    let manifest: Manifest
    do {
        manifest = try ManifestLoader.loadWithIncludes(text: text, file: "Tasksfile.yaml", directory: emptyDirectory).manifest
    } catch {
        // Rejected: with at least one error, each rendered as the user sees it.
        guard error.diagnostics.contains(where: { $0.severity == .error }) else {
            fatalError("the manifest was rejected without an error: \(error.diagnostics)")
        }
        let renderer = DiagnosticRenderer(sources: error.sources)
        for diagnostic in error.diagnostics {
            if let location = diagnostic.location, location.line < 1 || location.column < 1 {
                fatalError("a diagnostic's place is not a line and column counted from 1: \(diagnostic)")
            }
            _ = renderer.render(diagnostic)
        }
        return
    }
    let encoded = ManifestCodec.encode(manifest, index: taskIndex(manifest.tasks))
    guard let decoded = ManifestCodec.decode(encoded), decoded.manifest == manifest else {
        fatalError("the manifest cache's codec does not give back the manifest it was given")
    }
    // Damaged copies of real cache bytes, which random bytes seldom come close to: one cut short,
    // one with a byte changed (where and how depends on the input, so a run can be replayed).
    guard !encoded.isEmpty else { return }
    let mix = text.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
    _ = ManifestCodec.decode(Array(encoded.prefix(Int(mix % UInt64(encoded.count)))))
    var changed = encoded
    changed[Int((mix >> 20) % UInt64(encoded.count))] ^= UInt8(truncatingIfNeeded: mix >> 8) | 1
    _ = ManifestCodec.decode(changed)
}

/// Task id by name, the first of a repeated name keeping its id (as `TaskGraph.index` does).
func taskIndex(_ tasks: [TaskSpec]) -> [String: Int] {
    var index: [String: Int] = [:]
    for id in tasks.indices where index[tasks[id].name] == nil { index[tasks[id].name] = id }
    return index
}

#if OPSRUN_FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    checkManifestInput(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
#else
/// Built without libFuzzer: runs each file given through the same check (a crash found, or a
/// seed corpus), so a finding can be replayed under a debugger.
@main enum ManifestReplay {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let bytes = FileText.readBytes(path) else { fatalError("cannot read \(path)") }
            bytes.withUnsafeBytes(checkManifestInput)
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                _ = try ManifestLoader.load(text: text, file: "Tasksfile.yaml", directory: emptyDirectory)
                print("loads \(path)")
            } catch {
                print("refused \(path): \(error.diagnostics.first.map { "\($0)" } ?? "")")
            }
        }
    }
}
#endif
