// `percbridge replay FILE`: runs a recording through the frame assembler, the engine and the scheduler.
import ArgumentParser
import Foundation
import MTKTangibles
import PercRuntime

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a recording through the engine and the light-check scheduler.",
        discussion: """
        Cuts the recorded inputs into the same frames the live frame clock cut, steps the \
        engine and the scheduler on each, and prints digests of the inputs and the results: \
        two runs of the same file always print the same digests. When the file holds the \
        live run's result digests, each frame is compared and the first difference named \
        (exit status 1).

        Examples:
          percbridge replay session.jsonl
          percbridge replay session.jsonl --steps      # one line per frame with its state
          percbridge replay session.jsonl --json
        """
    )

    @Argument(help: "A recording written by `percbridge record` or `serve --record`.") var file: String
    @Flag(help: "Print one line per frame.") var steps = false
    @Flag(help: "Print the report as JSON.") var json = false

    func run() throws {
        let rec: RecordingFile
        do { rec = try RecordingFile.read(path: file) } catch { throw CLIError.reading(file, error.description) }
        let report = Replayer.run(rec) { frame, step in
            guard steps else { return }
            let states = step.engine.tangibles.map { "\($0.id):\($0.state)" }.joined(separator: " ")
            print("frame \(frame.number) t=\(String(format: "%.6f", frame.time)) contacts=\(frame.contacts.count) sensors=\(frame.sensorEvents.count) free=\(step.engine.freeTraces.count) \(states) \(step.digest)")
        }
        if json {
            let e = JSONEncoder(); e.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try e.encode(report), as: UTF8.self))
        } else {
            print("""
            frames:          \(report.frames) (\(report.contactUpdates) contact updates, \(report.sensorEvents) sensor events, \(report.presented) presented)
            tangibles:       \(report.tangiblesDefined) defined
            settings:        \(report.settings)
            inputs digest:   \(report.framesDigest)
            results digest:  \(report.resultsDigest)
            """)
            if report.calibrations > 0 { print("calibrations:    \(report.calibrations) started or cancelled through the control API") }
            if report.lightTestPatches > 0 { print("light tests:     \(report.lightTestPatches) patch changes shown or taken off (diagnose --light-test)") }
            if report.compared > 0 {
                print(report.mismatches.isEmpty ? "compared:        \(report.compared) frames, all identical to the live run"
                      : "compared:        \(report.compared) frames, \(report.mismatches.count) differ (first: frame \(report.firstMismatch!))")
            }
            if report.badLines > 0 { print("bad lines:       \(rec.bad)") }
        }
        if !report.mismatches.isEmpty { throw ExitCode(1) }
    }
}
