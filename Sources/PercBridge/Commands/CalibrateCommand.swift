// `percbridge calibrate`: find a PERC's light-sensor offset again, where it lies now.
import ArgumentParser
import Foundation
import PercControl

struct CalibrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Find a PERC's light-sensor offset again (it must lie still, tracked or resting).",
        discussion: """
        The service shows black and white areas under the tangible and halves them \
        until the light sensor's answers pin its position down, then stores the \
        offset. The PERC must be tracked or resting (see `percbridge list`) and stay \
        still; an app must draw the light-check overlay (e.g. the web viewer in full \
        screen).

        Examples:
          percbridge calibrate 2
          percbridge calibrate "PERC red" --json
        """
    )

    @Argument(help: "The tangible's id, name or address.") var tangible: String
    @Option(help: "Give up waiting for the service after this many seconds.") var timeout: Double = 120
    @OptionGroup var options: ControlOptions

    func validate() throws {
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
    }

    func run() async throws {
        try await options.run { client in
            let value = try await client.call("Calibrate", [.string(tangible)], timeout: .milliseconds(Int(timeout * 1000)))
            print(options.json ? ControlJSON.line(value) : ControlText.definition(value.stringVariantDictionary ?? [:], verb: "Calibrated", bus: options.bus))
        }
    }
}
