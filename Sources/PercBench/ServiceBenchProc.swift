// `bench service`: what /proc says about a process (CPU time, resident memory) and the machine's load.
import Foundation

/// Reads /proc text files (no pointers, no libc structs): the child's CPU time and RSS, and
/// the load average printed beside every figure (the machine is shared).
enum BenchProc {
    /// Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux).
    static let ticksPerSecond: Double = {
        let hz = sysconf(Int32(_SC_CLK_TCK))
        return hz > 0 ? Double(hz) : 100
    }()

    /// User + system CPU seconds of `pid` so far (its threads included), nil once it is gone.
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // After "pid (comm)": field 3 (state) is index 0, so utime (14) is 11 and stime (15) is 12.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond
    }

    /// Resident set size of `pid` in KiB (VmRSS), nil once it is gone.
    static func rssKiB(_ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    /// The 1-minute load average (from /proc/loadavg).
    static func load1() -> Double {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").first.flatMap { Double($0) } ?? .nan
    }

    /// This process's pid (for the bench's own CPU use).
    static var selfPID: Int32 { ProcessInfo.processInfo.processIdentifier }
}
