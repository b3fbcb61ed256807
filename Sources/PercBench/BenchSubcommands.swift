// The list of benchmarks of `percbridge-bench`. Each part adds its own line here.
import ArgumentParser

let benchSubcommands: [any ParsableCommand.Type] = [
    LightCheckBench.self,
    DBusSignalBench.self,
    EngineBench.self,
    AccuracyBench.self,
    InputBench.self,
    NotifyBench.self,
    ServiceBench.self,
    PredictBench.self,
    SoakBench.self,
    CrowdedBench.self,
]
