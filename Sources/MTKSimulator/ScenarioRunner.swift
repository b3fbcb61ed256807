// Plays a Scenario into a SimWorld: applies its steps at their times, loops if asked.
import MTKTangibles

/// Runs a scenario: advance it like a `SimWorld` (`advance(to:)` or `nextFrame()`), show it
/// overlays with `present(_:at:)`, score against `world.truth`.
///
///     var run = try ScenarioRunner(BuiltInScenarios.named("single-placement")!)
///     while !run.isFinished { let frame = run.nextFrame(); ... }
public struct ScenarioRunner: Sendable {
    public let scenario: Scenario
    /// The world being played (its `truth` and `truePose(of:at:)` score a recogniser).
    public private(set) var world: SimWorld
    /// How many times a looping scenario has started again.
    public private(set) var cycle = 0
    private let startModel: HardwareModel
    private let timeline: [ScenarioStep]
    private var nextStep = 0
    private var clock: SimFrameClock

    /// How frames are cut and a planner's overlays shown (`show(_:plannedAt:)`).
    public enum Timing: String, Sendable, CaseIterable {
        /// As `percbridge serve` and an app: a frame is also cut within `serveEventStep` of
        /// each sensor notification, and an overlay is on screen at the display's next refresh.
        case serve
        /// Fixed frames only, each overlay on screen at its frame's time (`bench accuracy`
        /// before 2026-12-02).
        case frames
    }

    /// `percbridge serve`'s clock in event mode (`clock.mode = "events"`, at most
    /// `clock.max_rate_hz` = 1000 frames a second): a sensor notification cuts a frame this
    /// soon after it arrives.
    public static let serveEventStep: Seconds = 0.001

    public let timing: Timing

    /// Sets up the world of `scenario` (its own seed unless `seed` is given); frames come at
    /// `frameRate`, and with `.serve` timing also at each sensor notification (`SimFrameClock`).
    public init(_ scenario: Scenario, seed: UInt64? = nil, frameRate: Double = 120,
                timing: Timing = .frames) throws(ScenarioError) {
        try scenario.validate()
        self.scenario = scenario
        startModel = try scenario.startModel()
        world = SimWorld(seed: seed ?? scenario.seed, surface: scenario.surface?.vec ?? Vec2(800, 500),
                         model: startModel, background: scenario.background ?? .black)
        for t in scenario.tangibles { world.add(t.definition, linked: t.linked ?? true) }
        // A touch with a duration is a touch and a later release.
        var expanded: [(Int, ScenarioStep)] = []
        for (i, s) in scenario.steps.enumerated() {
            expanded.append((i, s))
            if case .touch(let t) = s.action, let d = t.duration {
                expanded.append((i, ScenarioStep(at: s.at + d, .release(.init(tangible: t.tangible)))))
            }
        }
        timeline = expanded.sorted { ($0.1.at, $0.0) < ($1.1.at, $1.0) }.map(\.1)
        clock = SimFrameClock(rate: frameRate, eventStep: timing == .serve ? Self.serveEventStep : nil)
        self.timing = timing
    }

    /// The current virtual time (seconds from the scenario's start, across loops).
    public var now: Seconds { world.now }
    /// Whether the scenario starts again after its duration.
    public var isLooping: Bool { scenario.loop ?? false }
    /// A scenario that does not loop is finished at its duration.
    public var isFinished: Bool { !isLooping && world.now >= scenario.duration }

    /// Runs to `time`, applying the steps due, and returns what arrived.
    public mutating func advance(to time: Seconds) -> SimOutput {
        var out = SimOutput()
        while true {
            let base = Double(cycle) * scenario.duration
            if nextStep < timeline.count {
                let t = base + timeline[nextStep].at
                if t > time { break }
                out.append(world.advance(to: t))
                apply(timeline[nextStep].action)
                nextStep += 1
            } else if isLooping {
                let restart = base + scenario.duration
                if restart > time { break }
                out.append(world.advance(to: restart))
                restartCycle()
            } else {
                break
            }
        }
        out.append(world.advance(to: time))
        return out
    }

    /// The next frame (at the runner's frame rate).
    public mutating func nextFrame() -> Frame {
        var c = clock
        let f = c.next { advance(to: $0) }
        clock = c
        return f
    }

    /// The app shows `overlay` from `time` on.
    public mutating func present(_ overlay: Overlay, at time: Seconds) { world.present(overlay, at: time) }
    /// The app draws `overlay` at frame time `time`: on screen at the display's next refresh.
    public mutating func presentAtNextRefresh(_ overlay: Overlay, after time: Seconds) { world.presentAtNextRefresh(overlay, after: time) }
    /// A planner's overlay, planned in the frame at `time`, shown as `timing` says.
    public mutating func show(_ overlay: Overlay, plannedAt time: Seconds) {
        switch timing {
        case .serve: presentAtNextRefresh(overlay, after: time)
        case .frames: present(overlay, at: time)
        }
    }
    /// The light sensors read this screen instead of the simulated display (`demo --display screen`).
    public mutating func readScreen(_ screen: @escaping @Sendable (Vec2) -> LightColour) { world.screen = screen }

    private mutating func restartCycle() {
        cycle += 1
        nextStep = 0
        // Whatever a step left behind is cleared so that every cycle starts the same way.
        for d in world.definitions where world.isOnSurface(d.id) { world.lift(d.id) }
        for f in world.fingersDown { world.fingerUp(f) }
        for d in world.definitions { world.release(d.id) }
        world.setModel(startModel)
        world.setBackground(scenario.background ?? .black)
        for t in scenario.tangibles where (t.linked ?? true) && !world.isLinked(t.id) { world.linkReturn(t.id) }
    }

    private static func radians(_ degrees: Double) -> Double { degrees * Double.pi / 180 }

    private mutating func apply(_ action: ScenarioAction) {
        switch action {
        case .place(let a):
            world.place(a.tangible, at: Pose(position: a.position.vec, angle: Self.radians(a.angle ?? 0)), touches: a.touches)
        case .move(let a):
            guard let current = world.truePose(of: a.tangible) else { return }
            let points = (a.via ?? []).map(\.vec) + [a.to?.vec ?? current.position]
            var turn = Self.radians(a.turn ?? 0)
            if let target = a.angle {
                turn = Pose.normalise(Self.radians(target)) - current.angle
                if turn > Double.pi { turn -= 2 * Double.pi }
                if turn < -Double.pi { turn += 2 * Double.pi }
            }
            let duration = a.duration ?? Self.length(from: current.position, points) / (a.speed ?? 1)
            world.move(a.tangible, through: points, turn: turn, duration: duration, ghostMarker: a.ghostMarker)
        case .rotate(let a):
            world.move(a.tangible, through: [], turn: Self.radians(a.by), duration: a.duration)
        case .lift(let a):
            world.lift(a.tangible)
        case .touch(let a):
            world.touch(a.tangible, at: a.point?.vec ?? .zero)
        case .release(let a):
            world.release(a.tangible)
        case .fingerDown(let a):
            world.fingerDown(a.finger, at: a.position.vec)
        case .fingerMove(let a):
            guard let from = world.fingerPosition(a.finger) else { return }
            let points = (a.via ?? []).map(\.vec) + [a.to.vec]
            world.fingerMove(a.finger, through: points, duration: a.duration ?? Self.length(from: from, points) / (a.speed ?? 1))
        case .fingerUp(let a):
            world.fingerUp(a.finger)
        case .fingersTriple(let a):
            guard let def = world.definitions.first(where: { $0.id == a.like }) else { return }
            let pose = Pose(position: a.position.vec, angle: Self.radians(a.angle ?? 0))
            for (finger, marker) in zip(a.fingers, def.markers) {
                world.fingerDown(finger, at: pose.apply(marker * (a.scale ?? 1)))
            }
        case .linkLoss(let a):
            world.linkLoss(a.tangible)
        case .linkReturn(let a):
            world.linkReturn(a.tangible)
        case .hardware(let o):
            // Validated with the scenario; a failure here leaves the model as it was.
            try? world.apply(o)
        case .background(let c):
            world.setBackground(c)
        case .flicker(let a):
            world.flicker(a.tangible, marker: a.marker, frames: a.frames)
        }
    }

    private static func length(from start: Vec2, _ points: [Vec2]) -> Double {
        var total = 0.0, prev = start
        for p in points { total += p.distance(to: prev); prev = p }
        return total
    }
}
