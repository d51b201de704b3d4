import Foundation
import Testing

@testable import OpsrunKit
@testable import OpsrunManifest

/// docs/manual/variables.md: `${NAME}` and the shell's forms, in `env` values, `dir`, `sources`, `outputs`.
@Suite struct InterpolationTests {
    static let variables = [
        "HOME": "/home/me", "EMPTY": "", "A_1": "x", "SRC": "src/lib/a.c", "EXT": ".c", "PAT": "*/",
        "STAR": "a*", "U": "café.c", "DOTS": "a.b.c.d",
    ]

    func expand(_ template: String) -> String {
        do {
            return try Interpolation.expand(template) { Self.variables[$0] }
        } catch {
            return "error: \(error.message(in: "it"))"
        }
    }

    func problem(_ template: String) -> Interpolation.Problem? {
        do {
            _ = try Interpolation.expand(template) { Self.variables[$0] }
            return nil
        } catch {
            return error
        }
    }

    @Test func bracedNamesAreReplacedByTheirValues() {
        #expect(expand("${HOME}/bin") == "/home/me/bin")
        #expect(expand("${A_1}${A_1}-${EMPTY}-") == "xx--")
    }

    @Test func unknownNamesBecomeEmptyLikeAShell() {
        #expect(expand("a${NOPE}b") == "ab")
    }

    @Test func doubleDollarIsALiteralDollar() {
        #expect(expand("$${HOME}") == "${HOME}")
        #expect(expand("cost: $$5") == "cost: $5")
        #expect(expand("$$$${HOME}") == "$${HOME}")
        #expect(expand("${NOPE:-$$}") == "$")
    }

    @Test func aDollarNotBeforeABraceStaysAsWritten() {
        #expect(expand("$HOME") == "$HOME")
        #expect(expand("price $") == "price $")
        #expect(expand("$(pwd) $1") == "$(pwd) $1")
    }

    @Test func colonDashIsTheDefaultWhenUnsetOrEmpty() {
        #expect(expand("${NOPE:-dflt}") == "dflt")
        #expect(expand("${EMPTY:-dflt}") == "dflt")
        #expect(expand("${A_1:-dflt}") == "x")
        #expect(expand("${NOPE:-}") == "")
    }

    @Test func dashIsTheDefaultOnlyWhenUnset() {
        #expect(expand("${NOPE-dflt}") == "dflt")
        #expect(expand("${EMPTY-dflt}") == "")
        #expect(expand("${A_1-dflt}") == "x")
    }

    @Test func colonPlusIsTheAlternativeWhenSetAndNotEmpty() {
        #expect(expand("${A_1:+alt}") == "alt")
        #expect(expand("${EMPTY:+alt}") == "")
        #expect(expand("${NOPE:+alt}") == "")
    }

    @Test func plusIsTheAlternativeWhenSet() {
        #expect(expand("${A_1+alt}") == "alt")
        #expect(expand("${EMPTY+alt}") == "alt")
        #expect(expand("${NOPE+alt}") == "")
    }

    @Test func hashRemovesTheShortestPrefixAndDoubleHashTheLongest() {
        #expect(expand("${SRC#*/}") == "lib/a.c")
        #expect(expand("${SRC##*/}") == "a.c")
        #expect(expand("${SRC#src/}") == "lib/a.c")
        #expect(expand("${SRC#nomatch}") == "src/lib/a.c")
        #expect(expand("${SRC#*}") == "src/lib/a.c")
        #expect(expand("${SRC##*}") == "")
        #expect(expand("${NOPE#*}") == "")
    }

    @Test func percentRemovesTheShortestSuffixAndDoublePercentTheLongest() {
        #expect(expand("${SRC%.c}") == "src/lib/a")
        #expect(expand("build/${SRC%.c}.o") == "build/src/lib/a.o")
        #expect(expand("${DOTS%.*}") == "a.b.c")
        #expect(expand("${DOTS%%.*}") == "a")
        #expect(expand("${SRC%/*}") == "src/lib")
        #expect(expand("${SRC%%/*}") == "src")
        #expect(expand("${EMPTY%x}") == "")
    }

    /// A pattern without wildcards is compared byte for byte (the fast way); it must remove what the
    /// general matcher removes: whole scalars, once, at the right end only.
    @Test func patternsWithoutWildcardsRemoveExactlyThemselves() {
        #expect(expand("${DOTS%.d}") == "a.b.c")
        #expect(expand("${DOTS%%.d}") == "a.b.c")
        #expect(expand("${DOTS#a.}") == "b.c.d")
        #expect(expand("${DOTS%.c}") == "a.b.c.d")
        #expect(expand("${U%é.c}") == "caf")
        #expect(expand("${U%e\u{301}.c}") == "café.c")
        #expect(expand("${STAR%\\*}") == "a")
        #expect(expand("${SRC%src/lib/a.c}") == "")
        #expect(expand("${SRC#src/lib/a.c/}") == "src/lib/a.c")
        #expect(expand("${SRC%}") == "src/lib/a.c")
    }

    @Test func patternsHaveQuestionMarksSetsRangesClassesAndEscapes() {
        #expect(expand("${SRC%?}") == "src/lib/a.")
        #expect(expand("${SRC%.[ch]}") == "src/lib/a")
        #expect(expand("${SRC#[!s]}") == "src/lib/a.c")
        #expect(expand("${SRC#[a-s]r}") == "c/lib/a.c")
        #expect(expand("${SRC#[[:alpha:]]}") == "rc/lib/a.c")
        #expect(expand("${STAR%\\*}") == "a")
        #expect(expand("${STAR%[*]}") == "a")
        // A `[` that no `]` closes is a literal `[`.
        #expect(expand("${SRC#[}") == "src/lib/a.c")
        // Characters, not bytes: `?` takes the whole `é`.
        #expect(expand("${U%?.c}") == "caf")
    }

    @Test func patternsMayComeFromVariablesAndStillMatch() {
        #expect(expand("${SRC%${EXT}}") == "src/lib/a")
        #expect(expand("${SRC#${PAT}}") == "lib/a.c")
    }

    @Test func aTemplateParsedOnceExpandsEachInstanceWithItsOwnValues() throws {
        let template = try Interpolation.Template("build/${SRC%.c}.o ${SRC#${PREFIX}} ${SRC%%${EXT:-.*}}")
        let first = try template.expand { ["SRC": "a.c", "PREFIX": "a"][$0] }
        let second = try template.expand { ["SRC": "lib/b.c", "PREFIX": "lib/", "EXT": ".c"][$0] }
        #expect(first == "build/a.o .c a")
        #expect(second == "build/lib/b.o b.c lib/b")
    }

    @Test func wordsAreExpandedThemselvesAndOnlyWhenUsed() {
        #expect(expand("${NOPE:-${SRC%.c}.o}") == "src/lib/a.o")
        #expect(expand("${A_1:+[${EMPTY:-e}]}") == "[e]")
        // The `:?` in an unused word is never reached.
        #expect(expand("${A_1:-${NOPE:?never}}") == "x")
        // As in a shell, a `{` opens nothing: the word ends at the first `}`.
        #expect(expand("${NOPE:-{a}}") == "{a}")
        #expect(expand("${A_1:-{a}}") == "x}")
    }

    @Test func colonQuestionIsTheValueOrAnErrorNamingTheVariable() {
        #expect(expand("${A_1:?needed}") == "x")
        let unset = problem("at ${NOPE:?set NOPE to ${A_1}}")
        #expect(unset?.kind == .unset(name: "NOPE", message: "set NOPE to x"))
        #expect(unset?.offset == 3)
        #expect(unset?.message(in: "'dir' of task 'deploy'") == "'dir' of task 'deploy' needs NOPE, which is not set or is empty: set NOPE to x")
        #expect(problem("${EMPTY:?}")?.kind == .unset(name: "EMPTY", message: ""))
        #expect(problem("${EMPTY:?}")?.message(in: "it") == "it needs EMPTY, which is not set or is empty")
    }

    @Test func everyOtherFormIsAnErrorAtItsDollarBrace() {
        let cases: [(String, Int, String)] = [
            ("${X/a/b}", 0, "pattern substitution"),
            ("a/${X:0:2}", 2, "substrings"),
            ("${!X}", 0, "indirect expansion"),
            ("${#X}", 0, "the length of a value"),
            ("${}", 0, "it names no variable"),
            ("${1}", 0, "positional parameters"),
            ("${@}", 0, "positional parameters"),
            ("${?}", 0, "special parameters"),
            ("${A B}", 0, "cannot follow a variable name"),
            ("${ X}", 0, "a variable name is letters"),
            ("${X:=y}", 0, "assigning a default"),
            ("${X=y}", 0, "assigning a default"),
            ("${X?m}", 0, "only the ':?' form"),
            ("${X^^}", 0, "case conversion"),
            ("${X,}", 0, "case conversion"),
            ("${X@Q}", 0, "transformations"),
            ("${X[0]}", 0, "arrays"),
            ("ok ${A_1:-${X/a}}", 10, "pattern substitution"),
        ]
        for (template, offset, why) in cases {
            let found = problem(template)
            #expect(found?.offset == offset, "\(template)")
            guard case .unsupported(let reason)? = found?.kind else {
                Issue.record("\(template): \(String(describing: found))")
                continue
            }
            #expect(reason.contains(why), "\(template): \(reason)")
            #expect(Interpolation.problem(in: template) == found, "\(template)")
        }
        #expect(
            problem("${X/a/b}")?.message(in: "'outputs' of task 'build'")
                == "unsupported expansion '${X/a/b}' in 'outputs' of task 'build': pattern substitution (${NAME/pattern/string}) is not supported; \(Interpolation.forms)")
    }

    @Test func anUnclosedReferenceIsAnError() {
        for (template, offset) in [("${HOME", 0), ("a ${HOME:-x", 2), ("${A:-${B}", 0), ("${", 0), ("${X:", 0)] {
            let found = problem(template)
            #expect(found?.kind == .unclosed, "\(template)")
            #expect(found?.offset == offset, "\(template)")
        }
        #expect(problem("${HOME")?.message(in: "'dir' of task 'x'") == "unclosed '${' in 'dir' of task 'x': '${HOME' has no '}'; write $$ for a literal $")
    }

    @Test func aCheckedTemplateExpandsWithoutThrowing() {
        #expect(Interpolation.expandChecked("${SRC%.c}") { Self.variables[$0] } == "src/lib/a")
        #expect(Interpolation.expandChecked("${NOPE:?x}") { Self.variables[$0] } == "${NOPE:?x}")
    }

    @Test func onlyTemplatesWithColonQuestionMayFailAtRunTime() {
        #expect(Interpolation.mayRequire("${X:?m}"))
        #expect(Interpolation.mayRequire("a ${X:-${Y:?}}"))
        #expect(!Interpolation.mayRequire("${X:-a}"))
        #expect(!Interpolation.mayRequire("a:?b"))
    }

    @Test func valuesAreNotExpandedAgain() throws {
        #expect(try Interpolation.expand("${X}") { $0 == "X" ? "${Y}" : "no" } == "${Y}")
        #expect(try Interpolation.expand("${X%}") { $0 == "X" ? "${Y:?}" : nil } == "${Y:?}")
    }

    @Test func nonASCIITextPassesThrough() {
        #expect(expand("café ${HOME} ☕︎") == "café /home/me ☕︎")
    }

    @Test func referencesAreListedOnceInOrder() {
        #expect(Interpolation.references(in: "${B}/${A}/${B}/$${C}/$D/${E:-${F}}") == ["B", "A", "E", "F"])
    }

    @Test func longTemplatesExpandFully() {
        let template = String(repeating: "${A_1}$$", count: 100_000)
        #expect(expand(template) == String(repeating: "x$", count: 100_000))
    }

    /// The same templates through `/bin/sh` (inside double quotes, where a shell neither splits
    /// nor globs the result, as opsrun does not): every form means what it means there.
    @Test func everyFormExpandsAsTheShellExpandsIt() throws {
        let templates = [
            "${SRC}", "${NOPE}", "${EMPTY}", "${SRC:-d}", "${EMPTY:-d}", "${NOPE:-d}", "${SRC-d}", "${EMPTY-d}",
            "${NOPE-d}", "${SRC:+a}", "${EMPTY:+a}", "${NOPE:+a}", "${SRC+a}", "${EMPTY+a}", "${NOPE+a}",
            "${SRC#*/}", "${SRC##*/}", "${SRC%/*}", "${SRC%%/*}", "${SRC%.c}", "${SRC%.[ch]}", "${SRC#src}",
            "${SRC#nomatch}", "${SRC##*}", "${SRC#*}", "${SRC%?}", "${SRC%%?}", "${SRC#?}", "${SRC#[!s]}",
            "${SRC#[!a]}", "${SRC#[[:alpha:]]}", "${SRC%[[:punct:]]c}", "${SRC#[a-s]r}", "${STAR%\\*}",
            "${STAR%[*]}", "${SRC#[}", "${DOTS%.*}", "${DOTS%%.*}", "${DOTS#*.}", "${DOTS##*.}", "${DOTS#*.?.}",
            "${NOPE#x}", "${EMPTY%x}", "${NOPE:-${SRC%.c}.o}", "${SRC:+[${EMPTY:-e}]}", "${NOPE:-{a}}",
            "${SRC:-{a}}", "pre ${SRC##*/} mid ${NOPE:-x} post", "${SRC%${EXT}}", "${SRC#${PAT}}",
            "${NOPE-${EMPTY-unused}}", "${EMPTY:-${NOPE:-deep}}", "${SRC%%[/.]*}", "${SRC#*[/.]}", "a}b",
        ]
        let script = templates.map { "printf '%s\\n' \"\($0)\"" }.joined(separator: "\n")
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", script]
        var environment = Self.variables.filter { $0.key != "U" }
        environment["PATH"] = "/usr/bin:/bin"
        shell.environment = environment
        let output = Pipe()
        shell.standardOutput = output
        try shell.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        shell.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == templates.count)
        for (template, line) in zip(templates, lines) {
            #expect(expand(template) == String(line), "\(template)")
        }
    }
}
