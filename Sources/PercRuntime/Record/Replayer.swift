// Runs a recording through the frame assembler, the engine and the scheduler; compares with recorded digests.
import MTKTangibles

/// What `percbridge replay` reports: frames, contacts, and every frame whose result differs from the recording.
public struct ReplayReport: Codable, Sendable {
    public var frames: Int
    public var contactUpdates: Int
    public var sensorEvents: Int
    public var presented: Int
    public var tangiblesDefined: Int
    /// Digest over every frame's inputs (what the frame clock cut).
    public var framesDigest: String
    /// Digest over every step's results (engine output, overlay, outcomes).
    public var resultsDigest: String
    /// Frames whose recorded result digest was compared, and those that differed.
    public var compared: Int
    public var mismatches: [UInt64]
    public var firstMismatch: UInt64? { mismatches.first }
    public var badLines: Int
    /// Calibrations started or cancelled through the control API, applied where recorded.
    public var calibrations: Int
    /// Light-test patches shown or taken off (`diagnose --light-test` during the run), applied where recorded.
    public var lightTestPatches: Int
    /// RSSI readings in the file (not frame inputs: for `diagnose`).
    var rssiReadings: Int
    /// Where the engine and light-check settings came from (the header, or the defaults).
    public var settings: String
}

/// Runs a recording through the frame assembler, the engine and the scheduler, and compares
/// each frame with the digest recorded live.
public enum Replayer {
    /// Replays `file`; `onStep` sees every step (for printing or tests).
    public static func run(_ file: RecordingFile, onStep: (Frame, ReplayStep) -> Void = { _, _ in }) -> ReplayReport {
        let schedule = RecordingSchedule(file)
        let frames = schedule.steps.map(\.frame)
        var core = schedule.makeCore()
        let recorded = file.resultDigests
        var steps: [String] = []
        var mismatches: [UInt64] = []
        var compared = 0
        for (f, before) in schedule.steps {
            for c in before { core.apply(c) }
            let s = core.step(f)
            let digest = s.digest
            steps.append(digest)
            if let r = recorded[f.number] {
                compared += 1
                if r != digest { mismatches.append(f.number) }
            }
            onStep(f, s)
        }
        return ReplayReport(
            frames: frames.count,
            contactUpdates: frames.reduce(0) { $0 + $1.contacts.count },
            sensorEvents: frames.reduce(0) { $0 + $1.sensorEvents.count },
            presented: frames.reduce(0) { $0 + $1.presented.count },
            tangiblesDefined: core.engine.definitions.count,
            framesDigest: FrameDigest.of(frames), resultsDigest: FrameDigest.of(steps),
            compared: compared, mismatches: mismatches, badLines: file.bad.total,
            calibrations: file.schedulerCommands.filter { $0.action != .testPatches }.count,
            lightTestPatches: file.schedulerCommands.filter { $0.action == .testPatches }.count, rssiReadings: file.rssiSamples.count,
            settings: schedule.settingsNote())
    }
}
