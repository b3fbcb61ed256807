// The percbridge command: the root of the CLI; each subcommand lives in Commands/.
import ArgumentParser
import Foundation
import PercBlueZ

@main
struct PercBridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "percbridge",
        abstract: "PERC tangibles on any multi-touch table: pair, track, stream, diagnose.",
        discussion: """
        PercBridge connects PERC tangibles through BlueZ, fuses their sensors with the \
        touch traces of your table, and streams tangible state to apps (TUIO, WebSocket). \
        Run `percbridge help <subcommand>` for each part.

        Exit status: 0 done; 1 the answer is no (e.g. a replay differs, the service refused); \
        64 wrong arguments; 65 a file's content is wrong; 66 a named file or device cannot be \
        read; 69 a service it needs is not running; 73 an output cannot be written; 78 the \
        configuration is unusable.
        """,
        version: "0.1.0",
        subcommands: allSubcommands
    )

    /// ArgumentParser's entry, except that a runtime failure (`CLIError`) prints one line
    /// and its sysexits code instead of the usage.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            error.exit()
        } catch {
            exit(withError: error)
        }
    }
}
