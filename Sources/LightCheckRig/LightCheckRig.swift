// Drives a light-check planner against a simulated world, frame by frame, and keeps score.
import LightCheck
import MTKTangibles
import MTKSimulator

/// A closed loop for tests and benchmarks: the world's frames go to the planner with the
/// needs of the posed ``RigCheck``s, the planner's overlay is presented by a virtual app at
/// the next display refresh, and the light sensors of the world react to it. Scores every
/// outcome against the truth and counts patch frames drawn where the true tangible does not
/// cover them (the user could see them). Pure: no clock, no I/O.
public struct LightCheckRig<Planner: LightCheckPlanning> {
    public var world: SimWorld
    public var planner: Planner
    public var checks: [RigCheck]
    /// Requests the rig stops posing (to test a withdrawn need).
    public var withdrawn: Set<UInt64> = []
    /// What the engine believes each tangible's sensor offset is (default: its definition's).
    public var believedOffsets: [TangibleID: Vec2] = [:]
    /// From a frame to the app's draw call; the overlay shows at the next display refresh.
    public var renderTime: Seconds = 0.002
    /// Whether the virtual app reports presented overlays.
    public var reportsPresentation = true

    public private(set) var clock: SimFrameClock
    public private(set) var outcomes: [UInt64: VerificationOutcome] = [:]
    public private(set) var calibrations: [CalibrationResult] = []
    public private(set) var lastPlan: LightCheckPlan?
    /// Patch frames (a patch in a frame's overlay) of probes, decoys and stationary checks,
    /// and how many of them lay outside the true footprint, and which patch ids did.
    public private(set) var patchFrames = 0
    public private(set) var outsidePatchFrames = 0
    public private(set) var outsidePatchIDs: Set<Int> = []
    private let definitions: [TangibleID: TangibleDefinition]

    public init(world: SimWorld, planner: Planner, checks: [RigCheck] = [], frameRate: Double = 120) {
        self.world = world
        self.planner = planner
        self.checks = checks
        self.clock = SimFrameClock(rate: frameRate, start: world.now)
        self.definitions = Dictionary(world.definitions.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    public func outcome(of request: UInt64) -> VerificationOutcome? { outcomes[request] }

    /// Every posed check has an outcome.
    public var allDecided: Bool { checks.allSatisfy { outcomes[$0.request] != nil || withdrawn.contains($0.request) } }

    public var now: Seconds { world.now }

    /// The needs the engine would state at `time`: hypotheses placed on the pose the traces
    /// show (one touch-report latency old), with the traces' velocity.
    public func needs(at time: Seconds) -> [VerificationNeed] {
        var out: [VerificationNeed] = []
        for c in checks where time >= c.from && outcomes[c.request] == nil && !withdrawn.contains(c.request) {
            guard let def = definitions[c.tangible],
                  let pose = world.truePose(of: c.tangible, at: max(c.from, time - world.model.touchReportLatency)) else { continue }
            let before = world.truePose(of: c.tangible, at: max(0, time - 0.05)) ?? pose
            let velocity = (pose.position - before.position) / 0.05
            let offset = believedOffsets[c.tangible] ?? def.lightSensorOffset ?? .zero
            // A pose given in the true pose's frame, on the surface.
            func placed(_ rel: Pose) -> Pose { Pose(position: pose.apply(rel.position), angle: pose.angle + rel.angle) }
            let hypotheses = c.relativePoses.enumerated().map { (n, rel) -> Hypothesis in
                let p = placed(rel)
                return Hypothesis(id: n, pose: p, sensorPosition: p.apply(offset),
                                  traces: c.hypothesisTraces.indices.contains(n) ? c.hypothesisTraces[n] : [])
            }
            let others = c.otherRelativePoses.map { placed($0).apply(offset) }
            out.append(VerificationNeed(tangible: c.tangible, request: c.request, kind: c.kind, hypotheses: hypotheses,
                                        footprint: def.footprint, velocity: velocity, isMoving: velocity.length > 2,
                                        otherPlaces: others))
        }
        return out
    }

    /// One frame: advance the world, plan, present, score.
    @discardableResult
    public mutating func step() -> LightCheckPlan {
        var frame = clock.next { world.advance(to: $0) }
        if !reportsPresentation { frame.presented = [] }
        let plan = planner.plan(needs: needs(at: frame.time), frame: frame)
        for o in plan.outcomes where outcomes[o.request] == nil { outcomes[o.request] = o }
        calibrations += plan.calibrations
        if plan.overlayChanged {
            world.presentAtNextRefresh(plan.overlay, after: frame.time, renderTime: renderTime)
        }
        score(plan.overlay)
        lastPlan = plan
        return plan
    }

    /// Steps until `end` (frame time), or until every posed check is decided when `untilDecided`.
    public mutating func run(until end: Seconds, untilDecided: Bool = false) {
        while clock.nextTime <= end + 1e-9 {
            step()
            if untilDecided && allDecided && !checks.isEmpty { return }
        }
    }

    private mutating func score(_ overlay: Overlay) {
        for p in overlay.patches where p.purpose != .calibration {
            patchFrames += 1
            guard let def = definitions[p.tangible] else { continue }
            let covered = world.truePose(of: p.tangible).map { def.footprint.contains($0.local(p.center), margin: p.radius) } ?? false
            if !covered {
                outsidePatchFrames += 1
                outsidePatchIDs.insert(p.id)
            }
        }
    }
}
