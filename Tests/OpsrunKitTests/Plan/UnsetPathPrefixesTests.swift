import Testing

@testable import OpsrunPlan

/// Which references a path starts with that expand to nothing (docs/manual/variables.md).
@Suite struct UnsetPathPrefixesTests {
    static let variables = TaskVariables(pinned: [], taskName: nil, values: ["SET": "out", "EMPTY": "", "ROOT": "/srv"])

    static func unset(_ template: String) -> [String]? {
        UnsetPathPrefixes.leadingUnset(template, variables: variables).map { $0.names + [String($0.rest)] }
    }

    @Test func referencesThatExpandToNothingAreFoundAtTheStartOnly() {
        #expect(Self.unset("${NOPE}/x") == ["NOPE", "/x"])
        #expect(Self.unset("${EMPTY}${NOPE%.c}/x") == ["EMPTY", "NOPE", "/x"])
        #expect(Self.unset("${NOPE#${SET}}") == ["NOPE", ""])
        #expect(Self.unset("${SET}/x") == nil)
        #expect(Self.unset("${NOPE}${ROOT}/x") == nil)
        #expect(Self.unset("${NOPE:-/srv}/x") == nil)
        #expect(Self.unset("$NOPE/x") == nil)
        #expect(Self.unset("a/${NOPE}") == nil)
    }
}
