// `percbridge-bench <name>`: the benchmarks (each one adds itself to `benchSubcommands`).
// They are not in the `percbridge` product; `percbridge bench …` runs this binary when it is
// installed beside it.
import ArgumentParser

@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "percbridge-bench",
        abstract: "Run a PercBridge benchmark (build in release first: swift build -c release).",
        discussion: """
        Each benchmark prints its figures and its ratio against a baseline measured in the \
        same run. `percbridge bench <name>` runs the same benchmark when percbridge-bench is \
        installed next to percbridge.

        Example:
          swift build -c release && .build/release/percbridge-bench lightcheck
        """,
        version: "0.1.0",
        subcommands: benchSubcommands
    )
}

/// A benchmark could not run (printed as `Error: …`, exit 1).
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
