/// What runs a command when no `shell:` names another: `/bin/sh -e -c`, `-e` so that a `run: |`
/// block stops at its first failing line, as a GitHub Actions or GitLab CI step does. Known to the
/// manifest (`shell: sh`) and to the spawner, which runs it without a lookup.
public enum DefaultShell {
    public static let program = "/bin/sh"
    /// The program and its options; the command follows.
    public static let words = [program, "-e", "-c"]
}
