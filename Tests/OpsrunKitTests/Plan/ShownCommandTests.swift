import Testing

@testable import OpsrunPlan

/// `-n` and `-v` show commands with the variables opsrun sets substituted, as `make -n` does,
/// and leave everything the shell alone decides as written.
@Suite struct ShownCommandTests {
    let known = ["CC": "cc", "CFLAGS": "-O2 -Wall", "SRC": "src/a.c", "EMPTY": ""]

    func shown(_ command: String) -> String {
        ShownCommand.substitute(command) { known[$0] }
    }

    @Test func knownVariablesAreSubstitutedBareAndBraced() {
        #expect(shown("$CC $CFLAGS -c \"$SRC\" -o ${SRC}.o") == "cc -O2 -Wall -c \"src/a.c\" -o src/a.c.o")
        #expect(shown("x${EMPTY}y") == "xy")
    }

    @Test func theShellsFormsAreSubstitutedWhenTheNameIsKnown() {
        #expect(shown("cc -o \"build/${SRC%.c}.o\"") == "cc -o \"build/src/a.o\"")
        #expect(shown("${EMPTY:-fallback} ${SRC#src/}") == "fallback a.c")
    }

    @Test func singleQuotedTextIsNotSubstituted() {
        #expect(shown("echo '$CC ${SRC}' $CC") == "echo '$CC ${SRC}' cc")
        #expect(shown("echo \"it's $CC\"") == "echo \"it's cc\"")
    }

    @Test func escapedDollarsSpecialParametersAndSubstitutionsStayAsWritten() {
        #expect(shown("echo \\$CC \"\\$CC\"") == "echo \\$CC \"\\$CC\"")
        #expect(shown("echo $1 $@ $# $? $$CC $0") == "echo $1 $@ $# $? $$CC $0")
        #expect(shown("echo $(basename $SRC) `pwd`") == "echo $(basename src/a.c) `pwd`")
    }

    @Test func unknownNamesAndFormsWithUnknownNamesStayAsWritten() {
        #expect(shown("echo $HOME ${PATH} ${UNSET:-d} $CCX") == "echo $HOME ${PATH} ${UNSET:-d} $CCX")
        #expect(shown("echo ${CC:-$HOME} ${CC") == "echo ${CC:-$HOME} ${CC")
        #expect(shown("no dollar here") == "no dollar here")
        #expect(shown("price: 5$") == "price: 5$")
    }
}
