// A simulation scenario as data: tangibles, hardware settings and timed steps (JSON).
import MTKTangibles

import Foundation

/// A reproducible simulation: a seed, a surface, tangibles, hardware settings and timed
/// steps. Read one with `Scenario.decode(_:)` (JSON, see docs/simulator.md), run it with
/// `ScenarioRunner`; `BuiltInScenarios` has named ones.
public struct Scenario: Hashable, Sendable, Codable {
    public var name: String
    public var description: String?
    public var seed: UInt64
    /// Surface size in millimetres, `[width, height]` (default `[800, 500]`).
    public var surface: ScenarioPoint?
    public var background: LightColour?
    /// Length in seconds; a looping scenario starts again after it.
    public var duration: Seconds
    public var loop: Bool?
    public var hardware: HardwareOverrides?
    public var tangibles: [ScenarioTangible]
    public var steps: [ScenarioStep]

    public init(name: String, description: String? = nil, seed: UInt64, surface: ScenarioPoint? = nil,
                background: LightColour? = nil, duration: Seconds, loop: Bool? = nil, hardware: HardwareOverrides? = nil,
                tangibles: [ScenarioTangible], steps: [ScenarioStep]) {
        self.name = name; self.description = description; self.seed = seed; self.surface = surface
        self.background = background; self.duration = duration; self.loop = loop; self.hardware = hardware
        self.tangibles = tangibles; self.steps = steps
    }

    /// Reads a scenario from JSON and checks it; the error names the place of the problem.
    public static func decode(_ data: Data) throws(ScenarioError) -> Scenario {
        let s: Scenario
        do { s = try JSONDecoder().decode(Scenario.self, from: data) }
        catch let e as DecodingError {
            if case .dataCorrupted(let ctx) = e, ctx.codingPath.isEmpty { throw ScenarioError(syntaxIn: data) }
            throw ScenarioError(e)
        } catch { throw ScenarioError(path: "", message: "\(error)") }
        try s.validate()
        return s
    }

    /// The scenario as pretty-printed JSON with sorted keys.
    public func encoded() -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? e.encode(self)) ?? Data()
    }

    /// The hardware model the scenario starts with.
    public func startModel() throws(ScenarioError) -> HardwareModel {
        do { return try (hardware ?? HardwareOverrides()).applied(to: HardwareModel()) }
        catch let e as DecodingError {
            var err = ScenarioError(e)
            err.path = "hardware" + (err.path.isEmpty ? "" : "." + err.path)
            throw err
        } catch { throw ScenarioError(path: "hardware", message: "\(error)") }
    }

    /// Checks what JSON decoding cannot: references, ranges, order of steps.
    public func validate() throws(ScenarioError) {
        guard duration.isFinite, duration > 0 else { throw ScenarioError(path: "duration", message: "must be a number above 0, got \(duration)") }
        if let s = surface, !(s.x > 0 && s.y > 0) { throw ScenarioError(path: "surface", message: "width and height must be above 0") }
        _ = try startModel()
        var ids: [TangibleID: Int] = [:]
        for (i, t) in tangibles.enumerated() {
            if ids[t.id] != nil { throw ScenarioError(path: "tangibles[\(i)].id", message: "tangible id \(t.id) is used twice") }
            ids[t.id] = t.markers?.count ?? 3
            if let m = t.markers, m.count != 3 { throw ScenarioError(path: "tangibles[\(i)].markers", message: "a tangible has three markers, got \(m.count)") }
        }
        let known = ids.keys.sorted().map(String.init).joined(separator: ", ")
        func tangible(_ id: TangibleID, _ path: String) throws(ScenarioError) {
            if ids[id] == nil { throw ScenarioError(path: path, message: "no tangible with id \(id) (known: \(known.isEmpty ? "none" : known))") }
        }
        func positive(_ v: Double?, _ path: String) throws(ScenarioError) {
            if let v, !(v.isFinite && v > 0) { throw ScenarioError(path: path, message: "must be a number above 0, got \(v)") }
        }
        var last = 0.0
        for (i, step) in steps.enumerated() {
            let p = "steps[\(i)].\(step.action.verb)"
            if step.at < last { throw ScenarioError(path: "steps[\(i)].at", message: "steps must be in time order (\(step.at) comes after \(last))") }
            if step.at > duration { throw ScenarioError(path: "steps[\(i)].at", message: "step at \(step.at) s is after the scenario's end (\(duration) s)") }
            last = step.at
            switch step.action {
            case .place(let a):
                try tangible(a.tangible, p + ".tangible")
                if let bad = a.touches?.first(where: { !(0..<3).contains($0) }) { throw ScenarioError(path: p + ".touches", message: "marker index \(bad) is not 0, 1 or 2") }
            case .move(let a):
                try tangible(a.tangible, p + ".tangible")
                try positive(a.speed, p + ".speed"); try positive(a.duration, p + ".duration")
                if a.speed == nil && a.duration == nil { throw ScenarioError(path: p, message: "a move needs \"speed\" (mm/s) or \"duration\" (s)") }
                if a.turn != nil && a.angle != nil { throw ScenarioError(path: p, message: "give \"turn\" or \"angle\", not both") }
                if let g = a.ghostMarker, !(0..<3).contains(g) { throw ScenarioError(path: p + ".ghostMarker", message: "marker index \(g) is not 0, 1 or 2") }
            case .rotate(let a):
                try tangible(a.tangible, p + ".tangible"); try positive(a.duration, p + ".duration")
            case .lift(let a), .release(let a), .linkLoss(let a), .linkReturn(let a):
                try tangible(a.tangible, p + ".tangible")
            case .touch(let a):
                try tangible(a.tangible, p + ".tangible"); try positive(a.duration, p + ".duration")
            case .fingerDown, .fingerUp, .background:
                break
            case .fingerMove(let a):
                try positive(a.speed, p + ".speed"); try positive(a.duration, p + ".duration")
                if a.speed == nil && a.duration == nil { throw ScenarioError(path: p, message: "a finger move needs \"speed\" (mm/s) or \"duration\" (s)") }
            case .fingersTriple(let a):
                try tangible(a.like, p + ".like")
                if a.fingers.count != 3 { throw ScenarioError(path: p + ".fingers", message: "name three finger ids, got \(a.fingers.count)") }
                try positive(a.scale, p + ".scale")
            case .hardware(let o):
                do { _ = try o.applied(to: HardwareModel()) }
                catch let e as DecodingError { throw ScenarioError(path: p + "." + ScenarioError(e).path, message: ScenarioError(e).message) }
                catch { throw ScenarioError(path: p, message: "\(error)") }
            case .flicker(let a):
                try tangible(a.tangible, p + ".tangible")
                if !(0..<3).contains(a.marker) { throw ScenarioError(path: p + ".marker", message: "marker index \(a.marker) is not 0, 1 or 2") }
                if a.frames < 1 { throw ScenarioError(path: p + ".frames", message: "must be at least 1") }
            }
        }
    }
}
