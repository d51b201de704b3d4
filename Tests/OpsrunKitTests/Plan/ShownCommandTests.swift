import Testing

@testable import OpsrunPlan

/// `-n` and `-v` show commands with the variables opsrun sets substituted, as `make -n` does,
/// and leave everything the shell alone decides as written.
@Suite struct ShownCommandTests {
    let known = [
        "CC": "cc", "CFLAGS": "-O2 -Wall", "SRC": "src/a.c", "EMPTY": "",
        "Q": "a\"b$c`d\\e", "SAYING": "it's; fine", "LINES": "a\nb", "HASH": "#x", "GLOB": "*.c;",
    ]

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
    }

    @Test func unknownNamesAndFormsWithUnknownNamesStayAsWritten() {
        #expect(shown("echo $HOME ${PATH} ${UNSET:-d} $CCX") == "echo $HOME ${PATH} ${UNSET:-d} $CCX")
        #expect(shown("echo ${CC:-$HOME} ${CC") == "echo ${CC:-$HOME} ${CC")
        #expect(shown("no dollar here") == "no dollar here")
        #expect(shown("price: 5$") == "price: 5$")
    }

    @Test func variablesInsideCommandSubstitutionAreLeftAsWritten() {
        #expect(shown("echo `echo $CC` \"$(echo $CC)\" $CC") == "echo `echo $CC` \"$(echo $CC)\" cc")
        #expect(shown("echo $(basename $SRC) `pwd`") == "echo $(basename $SRC) `pwd`")
        // The `)` that ends it is found past nested parentheses, quotes, comments and case patterns.
        #expect(shown("x=$(echo \"$(basename $SRC)\" ')' $((1 + 2)) $CC) $CC") == "x=$(echo \"$(basename $SRC)\" ')' $((1 + 2)) $CC) cc")
        #expect(shown("echo $(case $SRC in *.c) echo $CC;; esac) $CC") == "echo $(case $SRC in *.c) echo $CC;; esac) cc")
        #expect(shown("echo $(echo $CC # it's )\n) $CC") == "echo $(echo $CC # it's )\n) cc")
        #expect(shown("echo $(( ${#SRC} + $CC )) $CC") == "echo $(( ${#SRC} + $CC )) cc")
    }

    @Test func quotedHereDocumentBodiesAreLeftAsWritten() {
        for delimiter in ["'EOF'", "\"EOF\"", "\\EOF", "E\"O\"F"] {
            #expect(shown("cat <<\(delimiter) > out\n$CC \"$SRC\"\nEOF\necho $CC") == "cat <<\(delimiter) > out\n$CC \"$SRC\"\nEOF\necho cc")
        }
        #expect(shown("cat <<-'EOF'\n\t$CC\n\tEOF\necho $CC") == "cat <<-'EOF'\n\t$CC\n\tEOF\necho cc")
        // Two on one line, their bodies in order; a line that only starts like the delimiter does not end it.
        #expect(shown("cat <<A - <<'B'\n$CC\nA\n$CC\nBB\nB\n$CC") == "cat <<A - <<'B'\ncc\nA\n$CC\nBB\nB\ncc")
    }

    @Test func unquotedHereDocumentBodiesAreSubstitutedWhereTheShellExpands() {
        // Quotes mean nothing in such a body: the shell expands `'$CC'`.
        #expect(shown("cat <<EOF\n'$CC' \"$SRC\" \\$CC `pwd` $(pwd)\nEOF") == "cat <<EOF\n'cc' \"src/a.c\" \\$CC `pwd` $(pwd)\nEOF")
        #expect(shown("cat <<< \"$CC\" <<<$SRC") == "cat <<< \"cc\" <<<src/a.c")
    }

    @Test func namesTheCommandSetsItselfAreLeftAsWritten() {
        #expect(shown("for CC in 1 2; do echo $CC; done") == "for CC in 1 2; do echo $CC; done")
        #expect(shown("unset CC; echo ${CC:-gone}") == "unset CC; echo ${CC:-gone}")
        #expect(shown("echo $SRC; SRC=b.c; echo $SRC $CC") == "echo $SRC; SRC=b.c; echo $SRC cc")
        #expect(shown("test -n \"$CC\" && export CFLAGS=\"$CFLAGS -g\" && echo $CFLAGS") == "test -n \"cc\" && export CFLAGS=\"$CFLAGS -g\" && echo $CFLAGS")
        #expect(shown("f() { local SRC=x; echo $SRC; }; readonly CC; echo $CC") == "f() { local SRC=x; echo $SRC; }; readonly CC; echo $CC")
        #expect(shown("read -r -p name SRC < f; echo $SRC") == "read -r -p name SRC < f; echo $SRC")
        #expect(shown("while getopts ab CC; do echo $CC; done") == "while getopts ab CC; do echo $CC; done")
        #expect(shown("unset -v SRC CC; echo $SRC$CC") == "unset -v SRC CC; echo $SRC$CC")
        #expect(shown("echo ${EMPTY:=set} $EMPTY") == "echo ${EMPTY:=set} $EMPTY")
        // An argument that looks like an assignment is not one: `make` gets `CC=gcc`, the shell's CC is unchanged.
        #expect(shown("make CC=gcc $CC") == "make CC=gcc cc")
    }

    @Test func valuesArePastedSoTheShellWouldReadThemTheSame() {
        // In double quotes, `\`, `"`, `$` and backquote escaped.
        #expect(shown("echo \"$Q\" \"${Q}\"") == "echo \"a\\\"b\\$c\\`d\\\\e\" \"a\\\"b\\$c\\`d\\\\e\"")
        #expect(shown("echo \"$LINES\"") == "echo \"a\nb\"")
        // Outside quotes, each field that needs it in single quotes: the same words after splitting.
        #expect(shown("echo $Q") == "echo 'a\"b$c`d\\e'")
        #expect(shown("echo x$SAYING") == "echo x'it'\\''s;' fine")
        #expect(shown("echo $LINES $HASH a$HASH") == "echo a b '#x' a'#x'")
        // Quoting would stop the shell's globbing of `*.c;`: left as written.
        #expect(shown("echo $GLOB") == "echo $GLOB")
        // `FLAGS=$CFLAGS` is split as an argument, not as an assignment: with blanks, left as written.
        #expect(shown("FLAGS=$CFLAGS make; echo $CFLAGS") == "FLAGS=$CFLAGS make; echo -O2 -Wall")
        #expect(shown("make CC=$CC") == "make CC=cc")
        // In an unquoted here-document, `\`, `$` and backquote escaped, quotes as they are.
        #expect(shown("cat <<EOF\n$Q\nEOF") == "cat <<EOF\na\"b\\$c\\`d\\\\e\nEOF")
        // Plain values paste raw.
        #expect(shown("cc $CFLAGS -c $SRC") == "cc -O2 -Wall -c src/a.c")
    }

    @Test func secretsAndWhatIsMadeFromThemAreNeverPasted() throws {
        let (instances, builder) = try TaskInstancesTests.expand("""
            env: { AUTH: "Bearer ${API}", MODE: fast }
            tasks:
              deploy:
                requires: [API]
                run: curl -H "$AUTH" --mode $MODE --key $API --pw $DB_PASSWORD
            """, overrides: [("API", "s3cret"), ("DB_PASSWORD", "hunter2")])
        let id = try #require(instances.graph.index["deploy"])
        #expect(builder.shownCommands(of: id) == [#"curl -H "$AUTH" --mode fast --key $API --pw $DB_PASSWORD"#])
    }

    @Test func namesThatReadAsSecretsWhateverTheirCase() {
        for name in ["GITHUB_TOKEN", "db_password", "SSH_KEY", "key", "stripe_apikey", "OAUTH_CLIENT", "PrivateRegistry"] {
            #expect(UnshownVariables.readsAsSecret(name), "\(name)")
        }
        for name in ["CFLAGS", "SRC", "KEYBOARD", "MONKEY", "TOKE", ""] {
            #expect(!UnshownVariables.readsAsSecret(name), "\(name)")
        }
    }
}
