/// Where `Reuse` says what it found (docs/manual/up-to-date.md): warnings, errors (a missing
/// source), and `--explain`'s reasons. Reuse never prints: in opsrun these go to the run's
/// `Status`, in tests to a list.
package struct ReuseReporter {
    package var warning: (String) -> Void
    package var error: (String) -> Void
    package var explain: (String) -> Void

    package init(
        warning: @escaping (String) -> Void, error: @escaping (String) -> Void, explain: @escaping (String) -> Void
    ) {
        self.warning = warning
        self.error = error
        self.explain = explain
    }
}
