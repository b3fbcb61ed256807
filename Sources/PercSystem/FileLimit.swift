// Raises the soft limit on open files so the service's own bounds, not the descriptor limit, decide.
import Glibc

/// The open-file limit (RLIMIT_NOFILE) of this process.
public enum FileLimit {
    /// Raises RLIMIT_NOFILE's soft limit to at least `needed` (up to the hard limit). Returns the
    /// soft limit now in force (a shell's default is often 1024; systemd's hard limit 524288).
    @discardableResult
    public static func raise(toAtLeast needed: Int) -> Int {
        var l = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &l) == 0 else { return -1 }
        guard l.rlim_cur < rlim_t(needed) else { return Int(l.rlim_cur) }
        l.rlim_cur = min(rlim_t(needed), l.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &l)
        _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &l)
        return Int(l.rlim_cur)
    }
}
