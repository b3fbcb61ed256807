// Hidden `percbridge config registry-writer`: rewrites a registry in a loop (crash-safety tests).
import ArgumentParser
import MTKTangibles

/// Used by the test that kills a writer with SIGKILL at random moments: each generation
/// has a different number of tangibles, all named after the generation, so a torn file
/// would show as undecodable or mixed.
struct RegistryWriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registry-writer",
        abstract: "Rewrite a registry file in a loop (for crash-safety tests).",
        shouldDisplay: false
    )

    @Argument var file: String
    @Option var count: Int = 1_000_000

    func run() throws {
        let store = RegistryStore(path: file)
        for generation in 0..<count {
            var r = TangibleRegistry()
            for i in 0..<(1 + generation % 150) {
                r.tangibles.append(.standardPerc(id: i + 1, name: "gen-\(generation)-\(i)",
                                                 address: String(format: "AA:BB:CC:00:%02X:%02X", i / 256, i % 256)))
            }
            try store.save(r)
        }
    }
}

import Foundation
import PercRuntime
