import Testing

@testable import OpsrunKit

/// Which command-line arguments are `NAME=VALUE` and which name tasks.
@Suite struct VariableArgumentTests {
    @Test func anArgumentWithABracketBeforeItsFirstEqualsNamesAnInstance() {
        #expect(VariableArgument.split("test[OS=linux,PY=3.11]") == nil)
        #expect(VariableArgument.split("compile[src/a.c]") == nil)
        #expect(VariableArgument.split("build") == nil)
        let variable = VariableArgument.split("FLAGS=a[1]=b")
        #expect(variable?.name == "FLAGS" && variable?.value == "a[1]=b")
    }
}
