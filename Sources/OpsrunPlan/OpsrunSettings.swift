/// opsrun's own settings in its environment: what configures opsrun never reaches a task's
/// environment, a log or a cache entry (a cache token in a task's environment would be printed by
/// any task that prints its environment, into its cached log).
public enum OpsrunSettings {
    /// `OPSRUN_CACHE_DIR`, `OPSRUN_NO_CACHE`, and every `OPSRUN_REMOTE_*` (the shared cache's URL,
    /// header and time limit, the remote executor).
    public static func contains(_ name: String) -> Bool {
        name == "OPSRUN_CACHE_DIR" || name == "OPSRUN_NO_CACHE" || name.utf8.starts(with: "OPSRUN_REMOTE_".utf8)
    }
}
