// The list of subcommands. Each part adds its own line here (one line per command).
import ArgumentParser

let allSubcommands: [any ParsableCommand.Type] = [
    VersionCommand.self,
    ConfigCommand.self,
    DemoCommand.self,
    BenchCommand.self,
]
