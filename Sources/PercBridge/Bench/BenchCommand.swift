// `percbridge bench <name>`: the group of benchmarks (each one adds itself to `benchSubcommands`).
import ArgumentParser

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run a benchmark (build in release first: swift build -c release).",
        discussion: """
        Each benchmark prints its figures and its ratio against a baseline measured in the \
        same run.

        Example:
          swift build -c release && .build/release/percbridge bench lightcheck
        """,
        subcommands: benchSubcommands
    )
}
