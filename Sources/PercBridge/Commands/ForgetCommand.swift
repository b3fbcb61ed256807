// `percbridge forget`: remove a tangible from the registry (and its module from BlueZ).
import ArgumentParser
import Foundation
import PercControl

struct ForgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Remove a tangible from the running service's registry (and unpair its module).",
        discussion: """
        Names the tangible by id, name or Bluetooth address (see `percbridge list`). \
        Needs root or membership in group percbridge on the system bus (the D-Bus \
        policy).

        Examples:
          percbridge forget 2
          percbridge forget "PERC red"
          percbridge forget C0:FF:EE:00:00:07 --bus session
        """
    )

    @Argument(help: "The tangible's id, name or address.") var tangible: String
    @OptionGroup var options: ControlOptions

    func run() async throws {
        try await options.run { client in
            let value = try await client.call("Forget", [.string(tangible)])
            if options.json { print(ControlJSON.line(value)); return }
            let d = value.stringVariantDictionary ?? [:]
            print("Forgot tangible \(d["id"]?.int ?? 0) (\(d["name"]?.string ?? tangible))\(d["address"]?.string.map { ", module \($0) unpaired" } ?? "").")
        }
    }
}
