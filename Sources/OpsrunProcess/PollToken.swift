import OpsrunEngine
/// What one epoll registration stands for, packed into epoll's 64-bit user data.
///
/// Layout: bits 0–2 the kind, bits 3–31 the job's slot (the pipe pair's index, the group watch's
/// slot), bits 32–63 a payload: the command's serial (so an event left over from a command that
/// already ended is recognised and dropped), or for a group member its generation (high 16 bits)
/// and index (low 16 bits).
enum PollToken: Equatable {
    /// A pair of `OutputPipes`, whichever job it is lent to.
    case output(pipes: Int, OutputStreamKind)
    case leaderExit(slot: Int, serial: UInt32)
    case memberExit(watch: Int, generation: UInt16, index: UInt16)
    case signal

    var rawValue: UInt64 {
        switch self {
        case .output(let pipes, .standardOutput): Self.pack(0, pipes, 0)
        case .output(let pipes, .standardError): Self.pack(1, pipes, 0)
        case .leaderExit(let slot, let serial): Self.pack(2, slot, serial)
        case .memberExit(let watch, let generation, let index):
            Self.pack(3, watch, UInt32(generation) << 16 | UInt32(index))
        case .signal: 4
        }
    }

    init(rawValue: UInt64) {
        let slot = Int((rawValue & 0xFFFF_FFFF) >> 3)
        let payload = UInt32(truncatingIfNeeded: rawValue >> 32)
        switch rawValue & 7 {
        case 0: self = .output(pipes: slot, .standardOutput)
        case 1: self = .output(pipes: slot, .standardError)
        case 2: self = .leaderExit(slot: slot, serial: payload)
        case 3:
            self = .memberExit(
                watch: slot, generation: UInt16(truncatingIfNeeded: payload >> 16),
                index: UInt16(truncatingIfNeeded: payload))
        default: self = .signal
        }
    }

    private static func pack(_ kind: UInt64, _ slot: Int, _ payload: UInt32) -> UInt64 {
        UInt64(payload) << 32 | (UInt64(slot) & 0x1FFF_FFFF) << 3 | kind
    }
}
