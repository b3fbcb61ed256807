// The frame clock's thread: wakes at absolute CLOCK_MONOTONIC deadlines (or on presented reports) and calls onTick.
import Dispatch
import Foundation
import MTKTangibles
import Synchronization

/// Calls `onTick(frameTime)` on one dedicated thread: at a fixed rate (absolute deadlines via
/// clock_nanosleep, so the rate does not drift), or after each `presented(at:)` report in
/// follow mode. `onTick` runs serially, never concurrently with itself.
public final class FrameTicker: Sendable {
    private let schedule: Mutex<TickSchedule>
    private let running = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let pendingPresented = Mutex<[Seconds]>([])
    private let done = DispatchSemaphore(value: 0)

    public init(mode: TickSchedule.Mode = .fixedRate(hz: 120)) {
        schedule = Mutex(TickSchedule(mode: mode))
    }

    public var mode: TickSchedule.Mode { schedule.withLock { $0.mode } }
    public var missedTicks: Int { schedule.withLock { $0.missedTicks } }

    /// Starts the thread. `onTick` gets the frame time (CLOCK_MONOTONIC seconds).
    public func start(onTick: @escaping @Sendable (Seconds) -> Void) {
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        schedule.withLock { $0.start(at: PosixClock.now()) }
        let t = Thread { [self] in
            run(onTick)
            done.signal()
        }
        t.name = "percbridge-frame-clock"
        t.qualityOfService = .userInteractive
        t.start()
    }

    /// Stops the thread and waits for its last tick to finish.
    public func stop() {
        guard running.compareExchange(expected: true, desired: false, ordering: .acquiringAndReleasing).exchanged else { return }
        wake.signal()
        done.wait()
    }

    /// An app reports a presented frame (follow mode): the thread cuts a frame at `time`.
    public func presented(at time: Seconds) {
        pendingPresented.withLock { $0.append(time) }
        wake.signal()
    }

    private func run(_ onTick: @Sendable (Seconds) -> Void) {
        let follow: Bool = if case .followPresented = mode { true } else { false }
        while running.load(ordering: .acquiring) {
            let deadline = schedule.withLock { $0.nextDeadline }
            if follow {
                let wait = max(0, deadline - PosixClock.now())
                _ = wake.wait(timeout: .now() + .nanoseconds(Int(wait * 1e9)))
            } else {
                PosixClock.sleep(until: deadline)
            }
            guard running.load(ordering: .acquiring) else { break }
            let now = PosixClock.now()
            let presented = pendingPresented.withLock { p -> [Seconds] in defer { p.removeAll() }; return p }
            var cuts: [Seconds] = []
            schedule.withLock { s in
                for t in presented { if let c = s.presented(at: t, now: now) { cuts.append(c) } }
                if cuts.isEmpty, let c = s.timerFired(now: now) { cuts.append(c) }
            }
            for c in cuts { onTick(c) }
        }
    }
}
