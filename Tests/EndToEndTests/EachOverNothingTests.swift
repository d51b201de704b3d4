import Foundation
import Testing

/// An `each` over nothing gives no instance (docs/manual/each.md): a value that is empty once
/// expanded is no value, and `-v` says why, as for a glob that matches nothing.
@Suite struct EachOverNothingTests {
    @Test func anEachValueThatExpandsToNothingGivesNoInstance() throws {
        let project = try TemporaryProject("""
            tasks:
              glob:
                each: { SRC: "${DISPATCH:+x.c}" }
                run: echo "glob [$SRC]" >> ran.log
              list:
                each: { SRC: ["${DISPATCH:+x.c}", b.c] }
                run: echo "list [$SRC]" >> ran.log
            """)
        let verbose = try project.run("-v", "-j", "1", "glob", "list")
        #expect(verbose.status == 0, "\(verbose.stdout)\(verbose.stderr)")
        #expect(try String(contentsOfFile: project.path("ran.log"), encoding: .utf8) == "list [b.c]\n")
        #expect(verbose.stdout.hasPrefix("glob: no instances: '${DISPATCH:+x.c}' is empty once expanded\n"), "\(verbose.stdout)")
        let plan = try project.run("-n", "glob", "list")
        #expect(plan.stdout == """
            wave 1:
              glob (no instances)
              list[b.c]
                $ echo "list [b.c]" >> ran.log
            wave 2:
              list (1 instance)

            """)
        // Set, it is a value like any other.
        let set = try project.run("-n", "DISPATCH=1", "list")
        #expect(set.stdout.contains("list[x.c]"), "\(set.stdout)")
    }
}
