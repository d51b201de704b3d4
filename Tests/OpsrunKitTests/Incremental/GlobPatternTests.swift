@testable import OpsrunKit
import Testing
@testable import OpsrunIncremental

@Suite struct GlobPatternTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var pattern: String
        var path: String
        var matches: Bool
        var testDescription: String { "\(pattern) \(matches ? "matches" : "does not match") \(path)" }
        init(_ pattern: String, _ path: String, _ matches: Bool) {
            self.pattern = pattern
            self.path = path
            self.matches = matches
        }
    }

    static let table: [Case] = [
        // `*` and `?` stay within one segment.
        Case("*.c", "main.c", true),
        Case("*.c", "main.h", false),
        Case("*.c", "src/main.c", false),
        Case("*", "anything", true),
        Case("a*b*c", "aXbYbZc", true),
        Case("a*b*c", "aXbYbZ", false),
        Case("*x", "xx", true),
        Case("?.c", "a.c", true),
        Case("?.c", "ab.c", false),
        Case("caf?", "café", true),
        // Classes: ranges, negation with ! or ^, a leading ] and a trailing - are literal.
        Case("[abc].c", "b.c", true),
        Case("[a-c].c", "d.c", false),
        Case("[!a-c].c", "d.c", true),
        Case("[!a-c].c", "b.c", false),
        Case("[^a-c].c", "b.c", false),
        Case("[]].c", "].c", true),
        Case("[!]].c", "].c", false),
        Case("[a-].c", "-.c", true),
        Case("[0-9][0-9]", "42", true),
        Case("[0-9][0-9]", "4x", false),
        Case("a[", "a[", true),
        Case("\\*.c", "*.c", true),
        Case("\\*.c", "a.c", false),
        // Hidden names: only a written dot matches a leading dot.
        Case("*.c", ".hidden.c", false),
        Case("?c", ".c", false),
        Case("[.]c", ".c", false),
        Case(".*.c", ".hidden.c", true),
        Case(".*", ".git", false),
        Case(".*", ".opsrun", false),
        Case(".*", ".env", true),
        // `**`: any number of directories, zero included, never hidden ones.
        Case("src/**/*.c", "src/main.c", true),
        Case("src/**/*.c", "src/x/y/main.c", true),
        Case("src/**/*.c", "src/.cache/main.c", false),
        Case("src/**/*.c", "lib/main.c", false),
        Case("**/*.c", "main.c", true),
        Case("**", "a/b/c", true),
        Case("**", ".a", false),
        Case("src/**", "src/a/b", true),
        Case("src/**", "src", false),
        Case("a/**/b/**/c", "a/b/c", true),
        Case("a/**/b/**/c", "a/x/b/y/z/c", true),
        Case("a/**/b", "a/x/c", false),
        Case("a/**/**/b", "a/b", true),
        // Spelling: `./` and doubled slashes are ignored; absolute stays absolute.
        Case("./src/*.c", "src/a.c", true),
        Case("src//*.c", "src/a.c", true),
        Case("/usr/include/*.h", "/usr/include/stdio.h", true),
        Case("/usr/include/*.h", "usr/include/stdio.h", false),
        Case("src/main.c", "src/main.c", true),
        Case("src/main.c", "src/main.h", false),
    ]

    @Test(arguments: table) func matchTable(_ item: Case) {
        #expect(GlobPattern(item.pattern).matches(item.path) == item.matches)
    }

    @Test func wildcardsAreDetected() {
        #expect(!GlobPattern("src/main.c").hasWildcards)
        #expect(!GlobPattern("src/\\*.c").hasWildcards)
        #expect(GlobPattern("src/*.c").hasWildcards)
        #expect(GlobPattern("src/?.c").hasWildcards)
        #expect(GlobPattern("src/[ab].c").hasWildcards)
        #expect(GlobPattern("src/**").hasWildcards)
        #expect(!GlobPattern("a[").hasWildcards)
        #expect(GlobPattern("./src//main.c").literalPath == "src/main.c")
    }

    @Test func aLiteralPathIsNormalizedWithoutParsingAPattern() {
        let texts = [
            "src/main.c", "./src//main.c", "src/./main.c", "src/main.c/", "src/.", ".", "", "/", "/abs/x",
            "//abs//x/", "/./x", "..", "../x", "a/../b", ".hidden/x", "x/.y", "a]b", "{a,b}",
        ]
        for text in texts {
            #expect(GlobPattern.literalPath(of: text) == GlobPattern(text).literalPath, "\(text)")
        }
        for text in ["src/*.c", "a?", "[ab]", "src/**", "src/\\*.c", "a["] {
            #expect(GlobPattern.literalPath(of: text) == nil, "\(text)")
        }
    }

    @Test func manyStarsAgainstALongNameFinishWithoutBacktrackingBlowUp() {
        let name = String(repeating: "a", count: 100_000)
        #expect(!GlobPattern("*a*a*a*a*a*a*a*b").matches(name))
        #expect(GlobPattern("*a*a*a*a*a*a*a*a").matches(name))
        let deep = Array(repeating: "d", count: 100_000).joined(separator: "/") + "/x.c"
        #expect(GlobPattern("**/d/**/x.c").matches(deep))
        #expect(!GlobPattern("**/e/**/x.c").matches(deep))
    }
}
