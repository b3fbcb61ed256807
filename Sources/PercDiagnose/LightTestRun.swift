// An active light test on one still tangible: decoy, then probe, N times; answers, misses, latency. Pure.
import Histogram
import MTKTangibles

/// Each round first shows the colour the sensor reports (a decoy, so the probe is a real
/// change even after a miss), then the opposite colour under the sensor; the sensor's
/// change within `answerWait` of the probe's presentation answers it, else it is a miss.
/// LightCheck's scheduler draws `patches` (the caller asks it, and reports with `issued` the
/// overlay in which they first showed); the caller feeds
/// every frame to `step`.
struct LightTestRun: Sendable {
    enum Phase: Sendable, Equatable {
        case decoy(shownAt: Seconds?)
        case probe(colour: LightColour, shownAt: Seconds?)
        case done
    }

    private(set) var status: LightTestStatus
    private(set) var phase: Phase = .decoy(shownAt: nil)
    /// The patches to draw now; nil once the test is over.
    private(set) var patches: [Patch]?
    private var overlayID: UInt64?
    private var latency = LatencyFigures.histogram()
    private let sensorOffset: Vec2
    /// The last presented report of a test overlay (the first frame's time to begin with).
    private var lastPresentedAt: Seconds?
    private var reported: Int?
    static let decoyHold: Seconds = 0.2
    static let answerWait: Seconds = 0.5
    /// Without any presented report for this long, no app is drawing overlays.
    static let presentTimeout: Seconds = 3
    static let radius = 6.0

    init(definition: TangibleDefinition, count: Int) {
        status = LightTestStatus(tangible: definition.id, name: definition.name, requested: count)
        sensorOffset = definition.lightSensorOffset ?? .zero
    }

    /// The caller put `patches` on screen in overlay `id`.
    mutating func issued(_ id: UInt64) { overlayID = id }

    /// One frame: `report` is the tangible's engine report after the step.
    mutating func step(_ frame: Frame, report: TangibleReport?) {
        guard status.state == .running else { return }
        if lastPresentedAt == nil { lastPresentedAt = frame.time }
        for p in frame.presented where overlayID.map({ p.overlayID >= $0 }) ?? false { shown(at: p.from) }
        for e in frame.sensorEvents where e.tangible == status.tangible && e.kind == .light { light(e) }
        guard let r = report, r.state == .tracked || r.state == .resting, let pose = r.pose else {
            return fail("\(status.name) is not on the surface any more (state \(report?.state.rawValue ?? "unknown")); put it down, keep it still and start again")
        }
        if reported == nil { reported = r.lightValue }
        if let last = lastPresentedAt, frame.time - last > Self.presentTimeout {
            return fail("no app reported drawing the light-check overlay for \(Int(Self.presentTimeout)) s: open the web viewer or run an app that draws overlays")
        }
        let sensor = pose.apply(sensorOffset)
        switch phase {
        case .decoy(let at):
            if let at, frame.time >= at + Self.decoyHold, let value = reported {
                phase = .probe(colour: LightColour(sensorValue: value).opposite, shownAt: nil)
                overlayID = nil
            }
        case .probe(_, let at):
            if let at, frame.time > at + Self.answerWait {
                status.missed += 1
                next()
            }
        case .done:
            break
        }
        patches = status.state == .running ? [patch(at: sensor)] : nil
    }

    private mutating func shown(at t: Seconds) {
        lastPresentedAt = t
        switch phase {
        case .decoy(nil): phase = .decoy(shownAt: t)
        case .probe(let c, nil): phase = .probe(colour: c, shownAt: t)
        default: break
        }
    }

    private mutating func light(_ e: SensorEvent) {
        defer { reported = e.value }
        guard case .probe(let colour, let at?) = phase, e.value == colour.sensorValue, e.arrival > at else { return }
        status.answered += 1
        _ = latency.record(UInt64(((e.arrival - at) * 1e6).rounded()))
        status.latency = LatencyFigures(latency)
        next()
    }

    private mutating func next() {
        status.done += 1
        overlayID = nil
        if status.done >= status.requested {
            status.state = .finished
            phase = .done
            patches = nil
        } else {
            phase = .decoy(shownAt: nil)
        }
    }

    private func patch(at sensor: Vec2) -> Patch {
        let colour: LightColour
        switch phase {
        case .probe(let c, _): colour = c
        default: colour = LightColour(sensorValue: reported ?? 0)
        }
        return Patch(id: 900_000 + status.done * 2 + (colour == .white ? 1 : 0), tangible: status.tangible, center: sensor,
                     radius: Self.radius, colour: colour, purpose: .stationary)
    }

    mutating func fail(_ message: String) {
        status.state = .failed
        status.message = message
        phase = .done
        patches = nil
    }
}
