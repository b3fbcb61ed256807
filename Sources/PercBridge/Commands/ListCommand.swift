// `percbridge list`: the tangibles the running service knows, with state, pose and link.
import ArgumentParser
import Foundation
import PercControl

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the tangibles the running service knows: state, provenance, pose, link.",
        discussion: """
        Asks the running service (its control API, docs/control-api.md). State is \
        the PERC state machine's (notInRange, inRange, onSurface, tracked, resting) \
        or, for PUCs, notRecognized/recognized; provenance says how sure the pose is \
        (guessed, confirmed, kept). Poses are millimetres from the surface's \
        top-left corner and degrees clockwise. A PERC whose light sensor is about \
        equally far from two of its markers gets a warning line on stderr (a \
        placement with only one of those markers touching cannot be resolved by \
        light; it says where to put the sensor instead).

        Examples:
          percbridge list
          percbridge list --bus session            # the service of `percbridge demo`
          percbridge list --json | jq '.[] | select(.state == "tracked") | .name'
        """
    )

    @OptionGroup var options: ControlOptions

    func run() async throws {
        try await options.run { client in
            let value = try await client.call("List")
            if options.json { print(ControlJSON.line(value)); return }
            let rows = (value.array ?? []).compactMap(\.stringVariantDictionary)
            if rows.isEmpty {
                print("No tangibles defined yet. Put one on the surface and run: percbridge define NAME [--address AA:BB:CC:DD:EE:FF]")
                return
            }
            print(ControlText.table(header: ["ID", "NAME", "KIND", "STATE", "PROVENANCE", "POSE", "ADDRESS", "LINK"],
                                    rows: rows.map(ControlText.tangibleRow)))
            // On stderr, after the table: it stays one row per tangible for scripts that read it.
            fflush(nil)
            for w in ControlText.tangibleWarnings(rows) { FileHandle.standardError.write(Data((w + "\n").utf8)) }
        }
    }
}
