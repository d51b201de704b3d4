/// opsrun's version, printed by `--version`.
public enum OpsrunVersion {
    public static let current = "0.1.0"
}
