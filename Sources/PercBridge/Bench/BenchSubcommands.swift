// The list of benchmarks under `percbridge bench`. Each part adds its own line here.
import ArgumentParser

let benchSubcommands: [any ParsableCommand.Type] = [
    LightCheckBench.self,
    NotifyBench.self,
]
