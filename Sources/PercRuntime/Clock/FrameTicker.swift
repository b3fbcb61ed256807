// The frame clock's thread: wakes on input, at absolute CLOCK_MONOTONIC deadlines or on presented reports, and calls onTick.
import Dispatch
import Foundation
import MTKTangibles
import Synchronization
import PercSystem

/// Calls `onTick(frameTime)` on one dedicated thread: at a fixed rate (absolute deadlines via
/// clock_nanosleep, so the rate does not drift), or after each `presented(at:)` report in
/// follow mode, or (event mode) as soon as `inputArrived()` says an input frame completed,
/// capped at `maxHz`, with a timer only until the core's next deadline (`Wake`). `onTick` runs serially,
/// never concurrently with itself.
public final class FrameTicker: Sendable {
    private let schedule: Mutex<TickSchedule>
    private let running = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let pendingPresented = Mutex<[Seconds]>([])
    private let done = DispatchSemaphore(value: 0)
    /// Event mode: an input frame completed since the last cut.
    private let pendingInput = Atomic<Bool>(false)
    private let eventDriven: Bool

    public init(mode: TickSchedule.Mode = .fixedRate(hz: 120)) {
        let s = TickSchedule(mode: mode)
        eventDriven = s.isEventDriven
        schedule = Mutex(s)
    }

    /// Event mode: an input frame completed (or a sensor event arrived); the thread cuts a
    /// frame at once unless the `maxHz` cap makes it wait. No-op in the timer modes.
    public func inputArrived() {
        guard eventDriven else { return }
        // Only the first input since the last cut wakes the thread; the rest ride along.
        if !pendingInput.exchange(true, ordering: .acquiringAndReleasing) { wake.signal() }
    }

    /// Event mode, after each frame: when time alone next changes the core's decisions, and
    /// whether anything is on the surface (`TickSchedule.wake(_:occupied:)`).
    public func wake(_ wake: Wake, occupied: Bool) {
        guard eventDriven else { return }
        let changed = schedule.withLock { s -> Bool in
            let was = s.nextDeadline
            s.wake(wake, occupied: occupied)
            return s.nextDeadline < was
        }
        if changed { self.wake.signal() }
    }

    public var mode: TickSchedule.Mode { schedule.withLock { $0.mode } }
    public var missedTicks: Int { schedule.withLock { $0.missedTicks } }

    /// Starts the thread. `onTick` gets the frame time (CLOCK_MONOTONIC seconds).
    public func start(onTick: @escaping @Sendable (Seconds) -> Void) {
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        schedule.withLock { $0.start(at: MonotonicClock.now()) }
        let promoted = DispatchSemaphore(value: 0)
        let t = Thread { [self] in
            ThreadName.setCurrent("pb-frame-clock")
            // Real-time when allowed (ReceiveThreadPriority): an input's frame must not wait
            // for a core behind ordinary work. Its work per frame is bounded (the engine's
            // tables, the outputs' queues) and at most `max_rate_hz` frames run a second.
            ReceiveThreadPriority.promoteCurrentThread(as: .frameClock)
            promoted.signal()
            run(onTick)
            done.signal()
        }
        t.qualityOfService = .userInteractive
        t.start()
        promoted.wait()  // so `ReceiveThreadPriority.status(of: .frameClock)` is known on return
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
        if eventDriven { return runEvents(onTick) }
        let follow: Bool = if case .followPresented = mode { true } else { false }
        while running.load(ordering: .acquiring) {
            let deadline = schedule.withLock { $0.nextDeadline }
            if follow {
                let wait = max(0, deadline - MonotonicClock.now())
                _ = wake.wait(timeout: .now() + .nanoseconds(Int(wait * 1e9)))
            } else {
                MonotonicClock.sleep(until: deadline)
            }
            guard running.load(ordering: .acquiring) else { break }
            let now = MonotonicClock.now()
            let presented = pendingPresented.withLock { p -> [Seconds] in defer { p.removeAll() }; return p }
            var cuts: [Seconds] = []
            schedule.withLock { s in
                for t in presented { if let c = s.presented(at: t, now: now) { cuts.append(c) } }
                if cuts.isEmpty, let c = s.timerFired(now: now) { cuts.append(c) }
            }
            for c in cuts { onTick(c) }
        }
    }

    /// Event mode: sleep until the next deadline (none while quiet) or a wake-up; cut for
    /// waiting inputs (respecting the cap), presented reports and busy deadlines.
    private func runEvents(_ onTick: @Sendable (Seconds) -> Void) {
        while running.load(ordering: .acquiring) {
            let input = pendingInput.load(ordering: .acquiring)
            let deadline = schedule.withLock { s in input ? max(s.earliestInputCut, -1) : s.nextDeadline }
            let wait = deadline - MonotonicClock.now()
            if wait > 0 {
                if deadline.isFinite {
                    _ = wake.wait(timeout: .now() + .nanoseconds(Int(min(wait, 3600) * 1e9)))
                } else {
                    wake.wait()
                }
            }
            guard running.load(ordering: .acquiring) else { break }
            let now = MonotonicClock.now()
            let presented = pendingPresented.withLock { p -> [Seconds] in defer { p.removeAll() }; return p }
            var cuts: [Seconds] = []
            schedule.withLock { s in
                for t in presented { if let c = s.presented(at: t, now: now) { cuts.append(c) } }
                if pendingInput.load(ordering: .acquiring), s.inputPending(now: now) != nil || !cuts.isEmpty {
                    pendingInput.store(false, ordering: .releasing)
                    if cuts.isEmpty { cuts.append(s.lastCut) }
                }
                if cuts.isEmpty, let c = s.timerFired(now: now) { cuts.append(c) }
            }
            for c in cuts { onTick(c) }
        }
    }
}
