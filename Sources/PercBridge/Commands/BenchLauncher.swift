// `percbridge bench …`: the benchmarks live in their own binary, percbridge-bench; this runs it.
import ArgumentParser
import Foundation
import Glibc
import PercSystem

/// Keeps `percbridge bench <name>` working: the benchmarks left the product binary
/// (docs/architecture.md), and this hands the arguments to `percbridge-bench` beside it.
struct BenchLauncher: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run a benchmark: hands over to percbridge-bench (installed beside percbridge).",
        discussion: """
        The benchmarks are a separate executable, so the service binary stays lean. \
        `percbridge bench engine` runs `percbridge-bench engine`; see `percbridge-bench --help`.
        """
    )

    @Argument(parsing: .captureForPassthrough, help: "The benchmark and its options.")
    var arguments: [String] = []

    func run() throws {
        guard let path = SiblingExecutable.path("percbridge-bench") else {
            throw CLIError(.unavailable, "the benchmarks are in percbridge-bench, which is not beside \(SiblingExecutable.current); build it (swift build -c release --product percbridge-bench) or install it next to percbridge")
        }
        let argv = [path] + arguments
        let cArgs = argv.map { strdup($0) } + [nil]
        execv(path, cArgs)
        throw CLIError(.software, "cannot run \(path): \(String(cString: strerror(errno)))")
    }
}
