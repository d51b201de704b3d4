#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The processors online, asked once: glibc's `sysconf(_SC_NPROCESSORS_ONLN)` opens and reads
/// `/sys/devices/system/cpu/online` at every call, and a run asked three times (the default of
/// `-j` twice, the stat prefetch once).
public enum Processors {
    public static let online = Int(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
}
