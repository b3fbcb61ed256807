// What the frame thread's own CPU time says, window by window: its share of a core and the frames that overran.
import MTKTangibles

/// The frame thread runs real-time (SCHED_FIFO) so an input's frame never waits behind
/// ordinary work. Its work per frame is meant to be bounded, but a defect that makes it grow
/// (issue 36: a callback that got slower every frame) would let it take a whole core from
/// BlueZ, the compositor and the apps — the kernel's RT throttling only stops it at 95%.
/// `serve` feeds each frame's thread CPU time here; at the end of each window the report
/// says how much of a core the thread used and how many frames took longer than a frame
/// period, and whether the thread should give up real-time scheduling (`share > maxShare`).
public struct FrameLoad: Sendable {
    /// Seconds per window.
    let window: Seconds
    /// The share of one core above which the thread drops to ordinary scheduling.
    let maxShare: Double
    private var start: Seconds?
    private var cpu: UInt64 = 0
    private var frames = 0
    private var overruns = 0
    private var longest: UInt64 = 0

    public struct Report: Equatable, Sendable {
        public var seconds: Seconds
        public var frames: Int
        /// The thread's CPU time over the window's wall time (1 = a whole core).
        public var share: Double
        /// Frames whose work took longer than the frame period.
        public var overruns: Int
        public var longestMs: Double
        public var tooBusy: Bool
    }

    public init(window: Seconds = 10, maxShare: Double = 0.5) { self.window = window; self.maxShare = maxShare }

    /// One frame's work took `cpuNanoseconds` of the thread's CPU time, finishing at `now`;
    /// a report when this frame closes a window.
    public mutating func frame(cpuNanoseconds: UInt64, period: Seconds, at now: Seconds) -> Report? {
        guard let started = start else { start = now; return nil }
        cpu &+= cpuNanoseconds
        frames += 1
        if Double(cpuNanoseconds) > period * 1e9 { overruns += 1 }
        longest = max(longest, cpuNanoseconds)
        let elapsed = now - started
        guard elapsed >= window else { return nil }
        let share = Double(cpu) / 1e9 / elapsed
        defer { self = FrameLoad(window: window, maxShare: maxShare); start = now }
        return Report(seconds: elapsed, frames: frames, share: share, overruns: overruns,
                      longestMs: Double(longest) / 1e6, tooBusy: share > maxShare)
    }
}
