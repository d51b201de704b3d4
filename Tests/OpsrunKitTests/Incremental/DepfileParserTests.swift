import Testing
@testable import OpsrunIncremental

/// The depfiles compilers write (docs/manual/depfiles.md, "Depfiles"), read as ninja's depfile parser reads them.
@Suite struct DepfileParserTests {
    func inputs(_ text: String) throws(DepfileParser.Malformed) -> [String] {
        try DepfileParser.inputs(of: Array(text.utf8))
    }

    func problem(_ text: String) -> String? {
        do {
            _ = try inputs(text)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func aRuleListsItsInputsAfterTheColon() throws {
        #expect(try inputs("build/a.o: src/a.c include/x.h\n") == ["src/a.c", "include/x.h"])
    }

    @Test func backslashNewlineContinuesTheRule() throws {
        let text = "build/a.o: src/a.c \\\n  include/x.h \\\n  include/y.h\n"
        #expect(try inputs(text) == ["src/a.c", "include/x.h", "include/y.h"])
        // Windows line ends too.
        #expect(try inputs("a.o: a.c \\\r\n b.h\r\n") == ["a.c", "b.h"])
    }

    @Test func aContinuationAtTheVeryEndListsNothingMore() throws {
        // A file cut short after its last `\`: no input named `\`, which would never exist.
        #expect(try inputs("out/a.o: a.c h.h \\") == ["a.c", "h.h"])
        #expect(try inputs("out/a.o: a.c h.h\\") == ["a.c", "h.h"])
    }

    @Test func anEscapedSpaceIsPartOfTheName() throws {
        #expect(try inputs("a.o: my\\ file.h other.h\n") == ["my file.h", "other.h"])
        // 2N+1 backslashes and a space: N backslashes and a space; 2N: the backslashes end the name.
        #expect(try inputs("a.o: x\\\\\\ y.h\n") == ["x\\ y.h"])
        #expect(try inputs("a.o: x\\\\ y.h\n") == ["x\\\\", "y.h"])
    }

    @Test func doubledDollarIsOneDollar() throws {
        #expect(try inputs("a.o: cost$$1.h $x.h\n") == ["cost$1.h", "$x.h"])
    }

    @Test func escapedHashAndColonAreKept() throws {
        #expect(try inputs("a.o: issue\\#1.h c\\:/include/w.h\n") == ["issue#1.h", "c:/include/w.h"])
        // Other backslashes stay as written.
        #expect(try inputs("a.o: dir\\name.h\n") == ["dir\\name.h"])
    }

    @Test func severalTargetsShareTheirInputs() throws {
        #expect(try inputs("a.o a.d: a.c a.h\n") == ["a.c", "a.h"])
        #expect(try inputs("a.o : a.c\n") == ["a.c"])
    }

    @Test func severalRulesAddUpAndEachInputCountsOnce() throws {
        let text = "a.o: a.c common.h\nb.o: b.c common.h\n"
        #expect(try inputs(text) == ["a.c", "common.h", "b.c"])
    }

    @Test func phonyTargetsOfDashMPAddNothing() throws {
        // What `cc -MMD -MP` writes: the rule, then an empty rule per header.
        let text = "build/a.o: src/a.c include/x.h include/y.h\n\ninclude/x.h:\n\ninclude/y.h:\n"
        #expect(try inputs(text) == ["src/a.c", "include/x.h", "include/y.h"])
    }

    @Test func anEmptyDepfileListsNothing() throws {
        #expect(try inputs("") == [])
        #expect(try inputs("\n\n") == [])
    }

    @Test func textThatIsNotADepfileIsMalformed() {
        #expect(problem("just some words\n") == "expected ':' in depfile")
        #expect(problem("a.o: a.c x.h\nx.h: y.h\n") == "inputs may not also have inputs")
        #expect(problem("a.o: a.c\0\n") == "a NUL byte at offset 8")
        #expect(problem("a.o: caf\u{e9}.h\n") == nil)
    }

    @Test func namesThatAreNotUTF8AreMalformed() {
        var bytes = Array("a.o: bad".utf8)
        bytes.append(0xff)
        bytes += Array(".h\n".utf8)
        #expect(throws: DepfileParser.Malformed(reason: "a name is not UTF-8")) { try DepfileParser.inputs(of: bytes) }
    }

    /// What gcc 12.2 wrote for `cc -MMD -MP -Iinclude -c "src/my lib.c" -o "build/my lib.o"`.
    @Test func whatGCCWritesIsRead() throws {
        let text = """
            build/my\\ lib.o: src/my\\ lib.c include/common.h include/extra.h
            include/common.h:
            include/extra.h:

            """
        #expect(try inputs(text) == ["src/my lib.c", "include/common.h", "include/extra.h"])
    }
}
