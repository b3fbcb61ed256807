// A recording's frames with the changes the core took before each (definitions, calibrations) and its settings: the one place replay and diagnose read them.
import LightCheck
import MTKTangibles

/// What a replay applies: the settings and definitions the live core started with, then per
/// frame the changes applied just before it (usually none): definition sets where the engine
/// switched, then calibrations started or cancelled through the control API, each in
/// recorded order — the order the live service applies them within one gap between frames
/// (the frame loop switches definitions right after a step, under the lock the control API
/// waits for).
public struct RecordingSchedule: Sendable {
    public enum Change: Sendable, Hashable {
        case definitions([TangibleDefinition])
        case calibration(SchedulerCommand)
    }

    public var initial: [TangibleDefinition]
    public var steps: [(frame: Frame, before: [Change])]
    /// The core's settings: the header's when it has them, else the fallbacks given.
    public var engine: EngineConfig
    public var lightChecks: LightCheckConfig
    /// Whether both settings came from the header (recordings of `serve` and `demo` since
    /// they carry them); false for `record` files and older recordings.
    var settingsRecorded: Bool

    public init(_ file: RecordingFile, fallbackEngine: EngineConfig = EngineConfig(),
                fallbackLightChecks: LightCheckConfig = LightCheckConfig()) {
        engine = file.header.engine ?? fallbackEngine
        lightChecks = file.header.lightChecks ?? fallbackLightChecks
        settingsRecorded = file.header.engine != nil && file.header.lightChecks != nil
        let frames = file.frames()
        let first = frames.first?.number ?? 1
        var definitionChanges = file.definitionsByFrame
        // Definitions recorded before the first tick are the ones the live core started with.
        initial = definitionChanges.last(where: { $0.beforeFrame <= first })?.definitions ?? []
        definitionChanges.removeAll { $0.beforeFrame <= first }
        // (before frame, definitions first, recorded order) — see the type's comment.
        var changes: [(UInt64, Int, Int, Change)] = definitionChanges.enumerated().map { ($1.beforeFrame, 0, $0, .definitions($1.definitions)) }
        changes += file.schedulerCommands.enumerated().map { ($1.afterFrame &+ 1, 1, $0, .calibration($1)) }
        changes.sort { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
        var next = changes[...]
        steps = frames.map { f in
            var before: [Change] = []
            while let c = next.first, c.0 <= f.number {
                before.append(c.3)
                next.removeFirst()
            }
            return (f, before)
        }
    }

    /// A fresh core with the recorded settings and starting definitions.
    public func makeCore() -> ReplayCore {
        ReplayCore(definitions: initial, engineConfig: engine, lightCheckConfig: lightChecks)
    }

    /// How replay and diagnose describe where the settings came from.
    public func settingsNote(fallback: String = "the defaults") -> String {
        settingsRecorded ? "recorded in the header (the settings the live run used)"
            : "\(fallback): the header has none (written by `percbridge record` or before settings were recorded)"
    }
}
