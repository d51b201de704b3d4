import Testing

@testable import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunManifest

@Suite struct DotenvTests {
    func parse(_ text: String) throws(DiagnosticList) -> [String] {
        try DotenvFile.parse(text, file: ".env").map { "\($0.name)=\($0.value)" }
    }

    func errors(_ text: String) -> [String] {
        do {
            _ = try DotenvFile.parse(text, file: ".env")
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test func valuesExpandVariablesFromTheEnvironmentFirstThenEarlierLines() throws {
        let text = """
            HOST=file-host
            URL=http://${HOST}:${PORT:-80}/
            QUOTED="${HOST}\\$HOME"
            RAW='${HOST}'
            PRICE=5$$
            """
        let values = try DotenvFile.parse(text, file: ".env") { $0 == "HOST" ? "real-host" : nil }
        #expect(values.map { "\($0.name)=\($0.value)" } == [
            "HOST=file-host", "URL=http://real-host:80/", "QUOTED=real-host$HOME", "RAW=${HOST}", "PRICE=5$",
        ])
        let earlier = try DotenvFile.parse("A=x\nB=${A}y\n", file: ".env")
        #expect(earlier.map { "\($0.name)=\($0.value)" } == ["A=x", "B=xy"])
    }

    @Test func aBadExpansionInAValueIsAnErrorAtItsLine() {
        #expect(errors("A=1\nB=${A/x/y}\n") == [
            ".env:2:3: error: unsupported expansion '${A/x/y}' in the value of 'B': pattern substitution (${NAME/pattern/string}) is not supported; "
                + Interpolation.forms,
        ])
    }

    @Test func readsNameValueLinesSkippingCommentsAndBlanks() throws {
        #expect(try parse("""
            # settings
            A=1

              B = two words   # trailing comment
            export C=/opt/c
            URL=http://x/#frag
            EMPTY=
            """) == ["A=1", "B=two words", "C=/opt/c", "URL=http://x/#frag", "EMPTY="])
    }

    @Test func quotedValues() throws {
        #expect(try parse(#"""
            S='single $HOME \n kept'
            D="line\none\t\"q\" \\ \$"
            H="a # not a comment" # a comment
            U="\q"
            """#) == [
            #"S=single $HOME \n kept"#,
            "D=line\none\t\"q\" \\ $",
            "H=a # not a comment",
            #"U=\q"#,
        ])
    }

    @Test func windowsLineEndingsAreAccepted() throws {
        #expect(try parse("A=1\r\nB='2'\r\n") == ["A=1", "B=2"])
    }

    @Test func exportAloneIsAName() throws {
        #expect(try parse("export=1\n") == ["export=1"])
    }

    @Test func badLinesAreReportedWithLineAndColumn() {
        #expect(errors("""
            GOOD=1
              no equals here
            1BAD=x
            Q="open
            R='closed' extra
            café=1
            """) == [
            ".env:2:3: error: expected NAME=VALUE, but this line has no '=' after the name",
            ".env:3:1: error: invalid variable name '1BAD'; use letters, digits and '_', not starting with a digit",
            ".env:4:3: error: the value's opening quote is never closed on this line",
            ".env:5:12: error: unexpected text after the closing quote",
            ".env:6:1: error: invalid variable name 'café'; use letters, digits and '_', not starting with a digit",
        ])
    }

    @Test func columnsCountCharactersNotBytes() {
        #expect(errors("A='é' y\n") == [".env:1:7: error: unexpected text after the closing quote"])
    }
}
