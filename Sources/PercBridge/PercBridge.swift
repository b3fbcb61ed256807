// The percbridge command: the root of the CLI; each subcommand lives in Commands/.
import ArgumentParser

@main
struct PercBridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "percbridge",
        abstract: "PERC tangibles on any multi-touch table: pair, track, stream, diagnose.",
        discussion: """
        PercBridge connects PERC tangibles through BlueZ, fuses their sensors with the
        touch traces of your table, and streams tangible state to apps (TUIO, WebSocket).
        Run `percbridge help <subcommand>` for each part.
        """,
        version: "0.1.0",
        subcommands: allSubcommands
    )
}
