// `percbridge define`: a new tangible from the three traces now on the surface, then its light sensor.
import ArgumentParser
import Foundation
import PercControl

struct DefineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "define",
        abstract: "Define a tangible from the three still traces now on the surface, then calibrate its light sensor.",
        discussion: """
        Put the tangible on the surface so that its three markers touch, keep it \
        still and lift your fingers; then run define (thesis 3.6.3). The service \
        takes the three still traces that no other tangible holds as the marker \
        pattern and stores it. For a PERC it then finds the light sensor: it shows \
        black and white under the tangible and halves the area until the sensor's \
        answers pin it down (an app must draw the light-check overlay, e.g. the web \
        viewer). Returns when the definition is stored with its offset, or with an \
        error that says what to change.

        A PERC needs its module's address (pair it first: percbridge pair ADDRESS); \
        a tangible without an address is a PUC.

        Examples:
          percbridge pair C0:FF:EE:00:00:07
          percbridge define "PERC red" --address C0:FF:EE:00:00:07
          percbridge define "Puck" --kind puc
          percbridge define "PERC red" --address C0:FF:EE:00:00:07 --bus session
        """
    )

    @Argument(help: "A name for the tangible (shown by apps; must be unique).") var name: String
    @Option(help: ArgumentHelp("perc or puc (default: perc with --address, else puc).", valueName: "KIND")) var kind: String?
    @Option(help: ArgumentHelp("The PERC module's Bluetooth address.", valueName: "AA:BB:CC:DD:EE:FF")) var address: String?
    @Option(help: "Give up waiting for the service after this many seconds.") var timeout: Double = 120
    @OptionGroup var options: ControlOptions

    func validate() throws {
        if let kind, !["perc", "puc"].contains(kind.lowercased()) { throw ValidationError("--kind must be perc or puc (got \(kind))") }
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
    }

    func run() async throws {
        try await options.run { client in
            let value = try await client.call("Define", [.string(name), .string(kind ?? ""), .string(address ?? "")],
                                              timeout: .milliseconds(Int(timeout * 1000)))
            print(options.json ? ControlJSON.line(value) : ControlText.definition(value.stringVariantDictionary ?? [:], verb: "Defined", bus: options.bus))
        }
    }
}
