import Foundation
import Testing

/// An output that is a symbolic link is not stored (docs/manual/cache.md): stored, it was a copy
/// of its target, which need not be any input of the task, so another clone got this one's bytes,
/// and a link keyed on them was restored too (found by an adversarial probe).
extension OutputCacheTests {
    static let linkedOutput = """
        tasks:
          prep:
            run: mkdir -p build && ln -sf ../vendor/lib.txt build/lib.txt
            sources: [Tasksfile.yaml]
            outputs: [build/lib.txt]
          obj:
            run: mkdir -p build && cp obj.txt build/obj.o
            sources: [obj.txt]
            outputs: [build/obj.o]
          link:
            deps: [prep, obj]
            run: cat build/obj.o build/lib.txt > build/app
            outputs: [build/app]
        """

    @Test func anOutputThatIsASymbolicLinkIsNotStoredAsACopyOfItsTarget() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let first = try TemporaryProject(Self.linkedOutput, files: ["obj.txt": "obj\n", "vendor/lib.txt": "libA\n"])
        #expect(try run(first, "link").status == 0)
        let second = try TemporaryProject(Self.linkedOutput, files: ["obj.txt": "obj\n", "vendor/lib.txt": "libB\n"])
        let result = try run(second, "link")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try String(contentsOfFile: second.path("build/app"), encoding: .utf8) == "obj\nlibB\n", "\(result.stdout)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: second.path("build/lib.txt"))) == "../vendor/lib.txt")
    }
}
