// The real FrameCore: MTKTangibles' Engine, then LightCheck's scheduler, outcomes fed back.
import Foundation
import FrameCore
import LightCheck
import MTKTangibles

/// One step: `Engine.step(frame, outcomes:)` with the outcomes the scheduler decided last
/// step, then `LightCheckScheduler.plan(needs:frame:)`. Also the entry point for the control
/// API's define and calibrate, which need the engine's traces and the scheduler's search.
public struct EngineCore {
    /// The pure step shared with `percbridge replay`.
    private var core: ReplayCore
    public var engine: Engine { core.engine }
    public var scheduler: LightCheckScheduler { core.scheduler }
    private var sessions: [TangibleID: Int64] = [:]
    private var nextSession: Int64 = 1
    private var motion: [TangibleID: PoseMotion] = [:]
    public private(set) var lastOutput: EngineOutput?
    private(set) var lastTime: Seconds = 0
    private(set) var lastFrame: UInt64 = 0
    /// Scheduler commands applied since the last step (they go out with the next FrameResult,
    /// so `--record` can note them).
    private var commands: [SchedulerCommand] = []
    /// Calibration results not yet taken by the service (to store offsets in the registry).
    private(set) var calibrations: [CalibrationResult] = []

    /// When time alone can next change what this core reports, after the last step: the
    /// frame core's deadline (`FrameCore.wake`), and every frame while a reported velocity
    /// is not zero yet (it settles over `PoseMotion.window` once a pose stops). Set by `step`
    /// from the velocities it reports (not fitted again).
    public private(set) var wake: Wake = .never

    public init(definitions: [TangibleDefinition], engine: EngineConfig = .init(), lightChecks: LightCheckConfig = .init()) {
        core = ReplayCore(definitions: definitions, engineConfig: engine, lightCheckConfig: lightChecks)
    }

    public mutating func step(_ frame: Frame) -> FrameResult {
        let (out, plan) = core.advance(frame)
        calibrations += plan.calibrations
        lastOutput = out
        lastTime = frame.time
        lastFrame = frame.number
        let appliedBefore = commands
        commands = []

        var recognitions: [TangibleID] = []
        var tangibles: [TangibleSnapshot] = []
        for r in out.tangibles {
            var t = TangibleSnapshot(id: r.id, name: r.name, kind: r.kind, state: r.state, pose: r.pose,
                                     provenance: r.provenance, light: r.lightValue, battery: r.battery)
            if let pose = r.pose {
                if sessions[r.id] == nil {
                    sessions[r.id] = nextSession
                    nextSession += 1
                    recognitions.append(r.id)
                }
                motion[r.id, default: PoseMotion()].add(pose, at: frame.time)
                (t.velocity, t.angularVelocity) = motion[r.id]!.velocity
            } else {
                sessions[r.id] = nil
                motion[r.id] = nil
            }
            t.session = sessions[r.id]
            t.placement = r.placement
            if r.kind == .perc {
                t.field = [.onSurface, .placed, .tracked, .resting].contains(r.state) ? 1 : (r.state == .notInRange ? nil : 0)
            }
            tangibles.append(t)
        }
        let pointers = out.freeTraces.filter { $0.phase != .end }.map {
            PointerSnapshot(id: Int64($0.id), position: $0.position, origin: $0.origin.description)
        }
        let moving = tangibles.contains { $0.velocity != .zero || $0.angularVelocity != 0 }
        wake = moving ? .everyFrame : core.wake
        return FrameResult(snapshot: SurfaceSnapshot(frame: frame.number, time: frame.time, tangibles: tangibles, pointers: pointers),
                           overlay: plan.overlayChanged ? plan.overlay : nil, outcomes: plan.outcomes, recognitions: recognitions,
                           schedulerCommands: appliedBefore, wake: wake)
    }

    /// Brings the engine's definitions in line with the registry: adds, removes, replaces.
    mutating func setDefinitions(_ definitions: [TangibleDefinition]) {
        core.setDefinitions(definitions)
    }

    /// The free traces now on the surface (for define).
    public var freeTraceIDs: [TraceID] { lastOutput?.freeTraces.filter { $0.phase != .end }.map(\.id) ?? [] }

    /// The free traces now on the surface (and those `including` holds) that have been there
    /// for the stationary window and stayed put over it: what define may use (thesis 3.6.3:
    /// "if all three markers generate touches").
    public func stillFreeTraceIDs(including holder: TangibleID? = nil) -> [TraceID] {
        let table = engine.table
        let window = engine.config.traces.stationaryWindow
        let held = holder.flatMap { lastOutput?.tangible($0)?.traces } ?? []
        return (freeTraceIDs + held).filter { id in
            guard let age = table.age(id, at: lastTime), age >= window else { return false }
            return table.isStationary(id, at: lastTime)
        }
    }

    /// Where a tangible defined from `traces` lies now: the centroid of the traces' recent
    /// mean positions (the same average `Engine.defineTangible` uses), angle 0 (the pose
    /// the definition is measured in).
    public func definedPose(traces: [TraceID]) -> Pose {
        let table = engine.table
        let since = table.now - engine.config.traces.stationaryWindow
        let points = traces.map { tr -> Vec2 in
            let recent = table.entries(tr).filter { $0.time >= since }
            return recent.isEmpty ? (table.position(tr) ?? .zero) : recent.reduce(Vec2.zero) { $0 + $1.position } / Double(recent.count)
        }
        return Pose(position: points.reduce(Vec2.zero, +) / Double(max(points.count, 1)), angle: 0)
    }

    /// A definition from exactly three free traces now on the surface (thesis 3.6.3).
    public func define(id: TangibleID, name: String, kind: TangibleDefinition.Kind, address: String?, profile: PercProfile?,
                traces: [TraceID]? = nil) throws -> TangibleDefinition {
        try engine.defineTangible(fromTraces: traces ?? freeTraceIDs, id: id, name: name, kind: kind, address: address, profile: profile)
    }

    public enum CalibrationError: Error, CustomStringConvertible {
        case notOnSurface(TangibleID), alreadyRunning(TangibleID)
        public var description: String {
            switch self {
            case .notOnSurface(let id): "tangible \(id) has no pose: put it on the surface (tracked or resting) and keep it still"
            case .alreadyRunning(let id): "a calibration of tangible \(id) is running already"
            }
        }
    }

    /// Starts LightCheck's search for the light-sensor offset of a tangible lying still.
    public mutating func startCalibration(of id: TangibleID) throws {
        guard let pose = lastOutput?.tangible(id)?.pose else { throw CalibrationError.notOnSurface(id) }
        try startCalibration(of: id, at: pose)
    }

    /// Starts the offset search for a tangible whose pose is known without recognition:
    /// one just defined from its traces lies at its markers' centroid with angle 0.
    public mutating func startCalibration(of id: TangibleID, at pose: Pose) throws {
        guard engine.definitions.contains(where: { $0.id == id }) else { throw CalibrationError.notOnSurface(id) }
        // Through the replay core, so `percbridge replay` applies the recorded command the same way.
        let command = SchedulerCommand(action: .start, tangible: id, afterFrame: lastFrame, time: lastTime, pose: pose)
        guard core.apply(command) else { throw CalibrationError.alreadyRunning(id) }
        commands.append(command)
    }

    /// Stops a running offset search (its `cancelled` result comes with the next frame).
    public mutating func cancelCalibration(of id: TangibleID) {
        let command = SchedulerCommand(action: .cancel, tangible: id, afterFrame: lastFrame, time: lastTime)
        core.apply(command)
        commands.append(command)
    }

    /// Shows a light test's patches for a tangible in the scheduler's overlay, or takes them
    /// off (nil); recorded for replay like a calibration. False (nothing changes) while a
    /// calibration of the tangible runs.
    public mutating func showTestPatches(_ patches: [Patch]?, for id: TangibleID) -> Bool {
        let command = SchedulerCommand(action: .testPatches, tangible: id, afterFrame: lastFrame, time: lastTime, patches: patches)
        guard core.apply(command) else { return false }
        commands.append(command)
        return true
    }

    mutating func takeCalibrations() -> [CalibrationResult] {
        defer { calibrations = [] }
        return calibrations
    }
}
