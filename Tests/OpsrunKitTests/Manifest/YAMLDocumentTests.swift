import Testing

@testable import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunManifest

@Suite struct YAMLDocumentTests {
    @Test func keysAndValuesCarryOneBasedLinesAndColumns() throws {
        let root = try #require(YAMLTest.parse("""
            version: 1
            tasks:
              build:
                run: make
                deps: [a, b]
            """))
        guard case .mapping(let top) = root.content else { Issue.record("not a mapping"); return }
        #expect(top.map(\.key) == ["version", "tasks"])
        #expect(top[1].keyLocation == SourceLocation(file: "Tasksfile.yaml", line: 2, column: 1))
        let tasks = try #require(root["tasks"])
        #expect(tasks.at == "3:3")
        let build = try #require(tasks["build"])
        guard case .mapping(let keys) = build.content else { Issue.record("not a mapping"); return }
        #expect(keys.map { "\($0.key)@\($0.keyLocation.line):\($0.keyLocation.column)" } == ["run@4:5", "deps@5:5"])
        #expect(build["run"]?.at == "4:10")
        #expect(build["run"]?.scalar == "make")
        #expect(build["deps"]?.at == "5:11")
        #expect(build["deps"]?.items.map(\.at) == ["5:12", "5:15"])
    }

    @Test func scalarsStayAsWritten() throws {
        let root = try #require(YAMLTest.parse("""
            a: yes
            b: on
            c: 0755
            d: 1.10
            e: 'quoted'
            f: ~
            g:
            """))
        #expect(["a", "b", "c", "d", "e"].map { root[$0]?.scalar } == ["yes", "on", "0755", "1.10", "quoted"])
        #expect(root["e"]?.isNull == false)
        #expect(root["f"]?.isNull == true)
        #expect(root["g"]?.isNull == true)
        #expect(root["g"]?.kindDescription == "empty")
    }

    @Test func aliasesRepeatTheAnchoredNode() throws {
        let root = try #require(YAMLTest.parse("""
            x-files: &files [a.c, b.c]
            sources: *files
            one: &one hello
            two: *one
            """))
        #expect(root["sources"]?.items.map(\.scalar) == ["a.c", "b.c"])
        #expect(root["two"]?.scalar == "hello")
    }

    @Test func mergeKeyWithOneMappingLetsExplicitKeysWin() throws {
        let root = try #require(YAMLTest.parse("""
            x-common: &common
              dir: src
              timeout: 1m
            one:
              <<: *common
              run: a
              timeout: 5m
            """))
        let one = try #require(root["one"])
        #expect(one.keys == ["dir", "run", "timeout"])
        #expect(one["timeout"]?.scalar == "5m")
        #expect(one["dir"]?.scalar == "src")
    }

    @Test func mergeKeyWithAListLetsEarlierMappingsWin() throws {
        let root = try #require(YAMLTest.parse("""
            x-a: &a { dir: src, timeout: 1m }
            x-b: &b { dir: other, retries: 2 }
            two:
              run: b
              <<: [*a, *b]
              retries: 3
            """))
        let two = try #require(root["two"])
        #expect(two.keys == ["run", "dir", "timeout", "retries"])
        #expect(two["dir"]?.scalar == "src")
        #expect(two["timeout"]?.scalar == "1m")
        #expect(two["retries"]?.scalar == "3")
    }

    @Test func mergingSomethingOtherThanMappingsIsAnError() {
        #expect(YAMLTest.errors("a:\n  <<: text\n") == [
            "Tasksfile.yaml:2:7: error: '<<' merges a mapping or a list of mappings, but this is a string",
        ])
        #expect(YAMLTest.errors("a:\n  <<: [{x: 1}, [y]]\n") == [
            "Tasksfile.yaml:2:16: error: '<<' merges mappings only, but this is a list",
        ])
    }

    @Test func duplicateKeyIsAnErrorNamingTheFirst() {
        #expect(YAMLTest.errors("""
            tasks:
              build:
                run: a
                run: b
            """) == ["Tasksfile.yaml:4:5: error: duplicate key 'run' (first written at line 3, column 5)"])
    }

    @Test func nonScalarKeyIsAnError() {
        #expect(YAMLTest.errors("? [a, b]\n: c\n") == [
            "Tasksfile.yaml:1:3: error: a mapping key must be a plain string, not a list",
        ])
    }

    @Test func billionLaughsIsRefusedQuickly() {
        var text = "lol0: &lol0 lol\n"
        for level in 1...9 {
            let items = Array(repeating: "*lol\(level - 1)", count: 9).joined(separator: ", ")
            text += "lol\(level): &lol\(level) [\(items)]\n"
        }
        #expect(YAMLTest.errors(text) == [
            "Tasksfile.yaml:8:14: error: aliases expand to more than 1000000 nodes; refusing to expand '*lol6' (is this a \"billion laughs\" file?)",
        ])
    }

    @Test func unknownAnchorIsAnError() {
        #expect(YAMLTest.errors("a: *nowhere\n") == ["Tasksfile.yaml:1:4: error: unknown anchor 'nowhere'"])
    }

    @Test func syntaxErrorCarriesLibyamlProblemAndPosition() {
        #expect(YAMLTest.errors("tasks: [a, b\nother: c\n") == [
            "Tasksfile.yaml:2:6: error: YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence at line 1, column 8)",
        ])
        #expect(YAMLTest.errors("tasks:\n  build: run: x\n") == [
            "Tasksfile.yaml:2:13: error: YAML syntax error: mapping values are not allowed in this context; "
                + "a value with ': ' in it must be quoted ('echo a: b'), and a mapping starts on a line of its own",
        ])
    }

    @Test func syntaxErrorsSayWhatTheUsualMistakeIs() {
        #expect(YAMLTest.errors("tasks:\n  b:\n\trun: echo b\n") == [
            "Tasksfile.yaml:3:1: error: YAML syntax error: found character that cannot start any token "
                + "(while scanning for the next token at line 3, column 1); this is a tab: YAML indents with spaces only",
        ])
        #expect(YAMLTest.errors("each: { SRC: *.c }\n") == [
            "Tasksfile.yaml:1:15: error: YAML syntax error: did not find expected alphabetic or numeric character "
                + "(while scanning an alias at line 1, column 14); a value starting with '*' is a YAML alias: quote a glob (\"*.c\")",
        ])
        #expect(YAMLTest.errors("outputs: [obj/${SRC%.c}.o]\n") == [
            "Tasksfile.yaml:1:16: error: YAML syntax error: did not find expected ',' or ']' "
                + "(while parsing a flow sequence at line 1, column 10); inside [...] or {...}, quote a value with '{' or '}' in it "
                + "([\"build/${SRC%.c}.o\"])",
        ])
    }

    @Test func secondDocumentIsAnError() {
        #expect(YAMLTest.errors("a: 1\n---\nb: 2\n") == [
            "Tasksfile.yaml:2:1: error: a manifest is one YAML document; remove the second '---'",
        ])
    }

    @Test func emptyTextHasNoRoot() throws {
        #expect(try YAMLDocument.parse("", file: "Tasksfile.yaml") == nil)
        #expect(try YAMLDocument.parse("# only a comment\n", file: "Tasksfile.yaml") == nil)
    }

    @Test func deepNestingIsRefusedNotOverflowingTheStack() {
        let depth = 100_000
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(YAMLTest.errors(text) == ["Tasksfile.yaml:1:129: error: YAML nested more than 128 levels deep"])
    }

    @Test func aHundredThousandEntriesAreRead() throws {
        var text = "tasks:\n"
        for i in 0..<100_000 { text += "  t\(i): [echo \(i)]\n" }
        let root = try #require(YAMLTest.parse(text))
        let tasks = try #require(root["tasks"])
        #expect(tasks.keys.count == 100_000)
        #expect(tasks.keys.last == "t99999")
        #expect(tasks["t99999"]?.items.first?.at == "100001:12")
    }
}
