// `bench service` and `bench soak`: what /proc says about a process and its threads (CPU time, resident memory) and the machine's load.
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
    static func cpuSeconds(_ pid: Int32) -> Double? { cpuSeconds(stat: "/proc/\(pid)/stat") }

    /// User + system CPU seconds of thread `tid` of `pid` so far, nil once it is gone.
    static func cpuSeconds(_ pid: Int32, thread tid: Int32) -> Double? { cpuSeconds(stat: "/proc/\(pid)/task/\(tid)/stat") }

    /// The threads of `pid` named `name` (/proc/<pid>/task/<tid>/comm: at most 15 bytes).
    static func threads(of pid: Int32, named name: String) -> [Int32] {
        let comm = String(name.utf8.prefix(15)) ?? name
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { Int32($0) }.filter { tid in
            let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8)
            return text?.trimmingCharacters(in: .newlines) == comm
        }.sorted()
    }

    /// The threads of `pid` blocked right now in `clock_nanosleep(CLOCK_MONOTONIC,
    /// TIMER_ABSTIME, …)` (/proc/<pid>/task/<tid>/syscall: the call's number and arguments; a
    /// running thread shows "running"). serve's fixed-rate frame clock waits for its next
    /// tick there (`MonotonicClock.sleep(until:)`), and no other thread of serve without
    /// --record does: how the bench finds it in builds whose thread name did not fit.
    static func threadsInMonotonicDeadlineSleep(of pid: Int32) -> [Int32] {
        #if arch(x86_64)
        let clockNanosleep = "230"
        #else
        let clockNanosleep = "115"  // arm64 and the other architectures of the generic table
        #endif
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { Int32($0) }.filter { tid in
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/syscall", encoding: .utf8) else { return false }
            let words = text.split(separator: " ")
            // clockid 1 = CLOCK_MONOTONIC, flags 1 = TIMER_ABSTIME.
            return words.count > 2 && words[0] == clockNanosleep && words[1] == "0x1" && words[2] == "0x1"
        }.sorted()
    }

    /// How thread `tid` of `pid` is scheduled: "SCHED_FIFO 10", "SCHED_OTHER" (figures of a
    /// real-time thread and an ordinary one do not compare on a busy machine).
    static func scheduling(_ pid: Int32, thread tid: Int32) -> String {
        // rt_priority is field 40 (index 37), policy field 41 (index 38).
        guard let fields = statFields("/proc/\(pid)/task/\(tid)/stat"), fields.count > 38,
              let priority = Int(fields[37]), let policy = Int(fields[38]) else { return "unknown" }
        let names = [0: "SCHED_OTHER", 1: "SCHED_FIFO", 2: "SCHED_RR", 3: "SCHED_BATCH", 5: "SCHED_IDLE", 6: "SCHED_DEADLINE"]
        let name = names[policy] ?? "policy \(policy)"
        return priority > 0 ? "\(name) \(priority)" : name
    }

    private static func cpuSeconds(stat path: String) -> Double? {
        // utime is field 14 (index 11), stime field 15 (index 12).
        guard let fields = statFields(path), fields.count > 12,
              let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond
    }

    /// The fields of a /proc stat file after "pid (comm)": field 3 (state) is index 0. comm may
    /// hold spaces and parentheses, so the split starts after the last ")".
    private static func statFields(_ path: String) -> [Substring]? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
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
