// The demo's frame loop: the simulator plays a scenario in real time into the service's pipeline.
import Foundation
import Histogram
import Logging
import MTKTangibles
import MTKSimulator
import ServiceLifecycle
import Synchronization
import PercSystem
import PercControl
import PercRuntime

/// Each tick: advance the simulated world to now, put its touches, sensor notifications
/// and presented reports on the frame clock, cut a frame, run the pipeline, and let the
/// simulated display show the new overlay at its next refresh (as a real app would).
public final class DemoLoop: Service {
    public struct Summary: Sendable {
        public var frames = 0
        public var recognitions = 0
        public var confirmed = 0, rejected = 0, inconclusive = 0
        public var overlays = 0
        /// Reported poses against the simulator's truth (running figures: a demo may run for days).
        public var poseErrors = PoseErrorSummary()
        /// Correct, swapped and unseen tangible-frames against the truth.
        public var truthCount = PoseTruthCount()
        /// Engine step times in ns (HdrHistogram: bounded memory whatever the run's length).
        public var steps = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
    }

    private let runner: Mutex<ScenarioRunner>
    private let parts: ServiceParts
    private let start: Seconds
    private let duration: Seconds?
    private let rate: Double
    /// Gets every frame before it is processed, and every definitions change (`--record`).
    private let recording: DemoRecording?
    /// Definitions the control API changed, taken at the next frame boundary.
    private let pendingDefinitions = Mutex<[TangibleDefinition]?>(nil)
    private let logger: Logger
    /// The virtual PERC modules: only paired and defined ones reach the service (nil: all do).
    private let links: DemoLinks?
    public let summary = Mutex(Summary())
    /// `--display app`: overlays are seen when an app reports them presented, not at the
    /// simulated display's next refresh. The latest few are kept to match the reports.
    private let displayByApp: Bool
    private let recentOverlays = Mutex<[Overlay]>([])

    public init(runner: sending ScenarioRunner, parts: ServiceParts, start: Seconds, duration: Seconds?, rate: Double,
         recording: DemoRecording?, links: DemoLinks? = nil, displayByApp: Bool = false, logger: Logger) {
        self.runner = Mutex(runner); self.parts = parts; self.start = start; self.displayByApp = displayByApp
        self.duration = duration; self.rate = rate; self.recording = recording; self.logger = logger
        self.links = links
    }

    /// The engine takes these definitions before the next frame (and `--record` notes them there).
    public func setDefinitions(_ definitions: [TangibleDefinition]) {
        pendingDefinitions.withLock { $0 = definitions }
    }

    public func run() async throws {
        let period = 1 / rate
        var tick = 1
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let due = start + Double(tick) * period
            let wait = due - MonotonicClock.now()
            if wait > 0 { try? await Task.sleep(for: .nanoseconds(Int64(wait * 1e9))) }
            // A late wake-up does not burst: the frame takes the time it is cut at.
            let now = MonotonicClock.now()
            tick = max(tick + 1, Int(((now - start) / period).rounded(.down)) + 1)
            let t = now - start
            if let d = duration, t >= d { break }
            step(at: t)
        }
        recording?.close()
    }

    /// One frame at simulated time `t` (seconds since the demo started).
    func step(at t: Seconds) {
        let output = runner.withLock { $0.advance(to: t) }
        parts.clock.add(contacts: output.contacts)
        for e in sensorEvents(output.sensorEvents, at: t) { parts.clock.add(e) }
        for p in output.presented { parts.clock.add(p) }
        let frame = parts.clock.cut(at: t)
        let definitions = pendingDefinitions.withLock { d in defer { d = nil }; return d }
        if let definitions { recording?.record(definitions: definitions) }
        recording?.record(frame)
        let started = MonotonicClock.now()
        let result = parts.pipeline.withPipeline { p in
            if let definitions { p.setDefinitions(definitions) }
            let result = p.process(frame)
            recording?.recordResult(of: p, frame: frame, result: result)
            return result
        }
        let stepTime = MonotonicClock.now() - started
        if let overlay = result.overlay, displayByApp {
            recentOverlays.withLock { $0.append(overlay); if $0.count > 16 { $0.removeFirst($0.count - 16) } }
        } else if let overlay = result.overlay {
            // Drawn ~2 ms after the frame, on screen at the display's next refresh.
            runner.withLock { $0.presentAtNextRefresh(overlay, after: t) }
        }
        let (errors, truths): ([(id: TangibleID, name: String, error: Double)], [TangibleID: Pose]) = runner.withLock { r in
            var truths: [TangibleID: Pose] = [:]
            for tg in result.snapshot.tangibles { truths[tg.id] = r.world.truePose(of: links?.simID(of: tg.id) ?? tg.id) }
            return (result.snapshot.tangibles.compactMap { tg in
                guard let pose = tg.pose, let truth = truths[tg.id] else { return nil }
                return (tg.id, tg.name, pose.position.distance(to: truth.position))
            }, truths)
        }
        summary.withLock { s in
            s.frames += 1
            s.recognitions += result.recognitions.count
            s.overlays += result.overlay == nil ? 0 : 1
            s.steps.record(UInt64(max(0, stepTime) * 1e9))
            s.poseErrors.add(frameAt: t, errors: errors)
            s.truthCount.add(result.snapshot.tangibles, at: t) { truths[$0] }
            for o in result.outcomes {
                switch o.result {
                case .confirmed: s.confirmed += 1
                case .rejected: s.rejected += 1
                case .inconclusive: s.inconclusive += 1
                }
            }
        }
    }

    /// An app put overlay `report.overlayID` on screen (`--display app`): the simulated light
    /// sensors see it from then on, and the report reaches the scheduler with the world's next step.
    public func appPresented(_ report: PresentedOverlay) {
        guard let overlay = recentOverlays.withLock({ $0.last { $0.id == report.overlayID } }) else {
            logger.debug("presented report for an unknown overlay", metadata: ["overlay": "\(report.overlayID)"])
            return
        }
        runner.withLock { $0.present(overlay, at: report.from) }
    }

    /// The simulator's notifications as the service gets them: through the virtual links,
    /// after the current state of each module that was newly paired and defined (a real
    /// link reports the field and light states of a PERC that lies on the surface already).
    private func sensorEvents(_ events: [SensorEvent], at t: Seconds) -> [SensorEvent] {
        guard let links else { return events }
        var out: [SensorEvent] = []
        let syncs = links.takeSyncs()
        let inRange: [TangibleID: Bool] = runner.withLock { r in
            for sim in syncs {
                guard let id = links.serviceID(ofSim: sim), r.world.isLinked(sim) else { continue }
                out.append(SensorEvent(tangible: id, kind: .link, value: 1, arrival: t))
                out.append(SensorEvent(tangible: id, kind: .field, value: r.world.isOnSurface(sim) ? 1 : 0, arrival: t))
                if let light = r.world.sensedLight(of: sim) {
                    out.append(SensorEvent(tangible: id, kind: .light, value: light.sensorValue, arrival: t))
                }
            }
            return Dictionary(links.modules.map { ($0.simID, r.world.isLinked($0.simID)) }, uniquingKeysWith: { a, _ in a })
        }
        links.observe(inRange: inRange)
        return out + links.route(events)
    }
}
