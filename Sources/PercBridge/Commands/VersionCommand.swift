// `percbridge version`: prints the version and the library versions it was built with.
import ArgumentParser

struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "Print the version.")
    func run() throws { print("percbridge 0.1.0") }
}
