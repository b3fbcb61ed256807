// `--record FILE` for the demo: writes each frame's inputs in the recording format of the inputs part.
import MTKTangibles

/// Wraps the inputs part's recorder. Until that lands on this branch, asking for a
/// recording fails with a clear message instead of writing a format nobody reads.
struct DemoRecording: Sendable {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "--record is not available in this build yet (the recording writer of the inputs part is missing)" }
    }

    init(path: String, surface: Vec2, rate: Double, scenario: String, definitions: [TangibleDefinition]) throws {
        throw Unavailable()
    }

    func record(_ frame: Frame) {}
    func close() {}
}
