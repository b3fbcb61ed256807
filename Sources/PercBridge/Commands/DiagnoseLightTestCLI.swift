// `diagnose --light-test N TANGIBLE`: starts the service's light test, shows progress, prints miss rate and latency.
import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
import PercDiagnose
#endif
import PercSystem

struct DiagnoseLightTestCLI {
    let client: DiagnoseClient

    func run(tangible: String, count: Int) async throws {
        var status: LightTestStatus
        do { status = try await client.startLightTest(tangible: tangible, count: count) } catch {
            throw CLIError(.unavailable, "\(error)")
        }
        let tty = isatty(STDOUT_FILENO) == 1
        print("light test of \(status.name) (id \(status.tangible)): \(count) checks")
        var shown = -1
        // Each check takes well under a second; a stuck test is given up with a message
        // (by the monotonic clock: a wall-clock step must not end it early).
        let deadline = MonotonicClock.now() + Double(count) * 3 + 15
        while status.state == .running && MonotonicClock.now() < deadline {
            try await Task.sleep(for: .milliseconds(200))
            do { status = try await client.lightTestStatus() } catch {
                throw CLIError(.unavailable, "\(error)")
            }
            guard status.done != shown else { continue }
            shown = status.done
            if tty {
                let width = 30, filled = status.requested > 0 ? width * status.done / status.requested : 0
                let bar = "\r[\(String(repeating: "#", count: filled))\(String(repeating: "-", count: width - filled))] \(status.done)/\(status.requested)  answered \(status.answered)  missed \(status.missed)"
                FileHandle.standardOutput.write(Data(bar.utf8))
            } else {
                print("progress \(status.done)/\(status.requested): answered \(status.answered), missed \(status.missed)")
            }
        }
        if tty { FileHandle.standardOutput.write(Data("\n".utf8)) }
        switch status.state {
        case .finished:
            let rate = status.missRate.map { String(format: "%.1f%%", $0 * 100) } ?? "n/a"
            print("result: \(status.done) checks, \(status.answered) answered, \(status.missed) missed (miss rate \(rate))")
            print("response latency: " + (status.latency.map(ReportTable.latency) ?? "none answered"))
        case .failed:
            throw CLIError(.failure, "light test failed: \(status.message ?? "unknown reason")")
        case .running:
            throw CLIError(.failure, "the light test did not finish in time (\(status.done) of \(status.requested) checks); is an app drawing the overlay?")
        }
    }
}
