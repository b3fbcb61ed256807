// A recording's frames with the definition changes that come before each: the one place replay and diagnose read them.
import MTKTangibles

/// What a replay applies: the definitions the live core started with, then per frame the
/// definition sets applied just before it, in recorded order (usually none).
public struct RecordingSchedule: Sendable {
    public var initial: [TangibleDefinition]
    public var steps: [(frame: Frame, definitionsBefore: [[TangibleDefinition]])]

    public init(_ file: RecordingFile) {
        let frames = file.frames()
        let first = frames.first?.number ?? 1
        var changes = file.definitionsByFrame
        // Definitions recorded before the first tick are the ones the live core started with.
        initial = changes.last(where: { $0.beforeFrame <= first })?.definitions ?? []
        changes.removeAll { $0.beforeFrame <= first }
        var next = changes[...]
        steps = frames.map { f in
            var before: [[TangibleDefinition]] = []
            while let d = next.first, d.beforeFrame <= f.number {
                before.append(d.definitions)
                next.removeFirst()
            }
            return (f, before)
        }
    }
}
