/// Names of Linux signal numbers, as users know them (`SIGKILL`, not 9).
enum SignalName {
    private static let names = [
        "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2",
        "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG",
        "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
    ]

    /// `SIGTERM` for 15; `signal 40` for a number without a name (real-time signals).
    static func of(_ number: Int32) -> String {
        (1...names.count).contains(Int(number))
            ? "SIG" + names[Int(number) - 1] : "signal \(number)"
    }
}
