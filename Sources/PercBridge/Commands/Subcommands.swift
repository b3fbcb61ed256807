// The list of subcommands. Each part adds its own line here (one line per command).
import ArgumentParser

let allSubcommands: [any ParsableCommand.Type] = [
    VersionCommand.self,
    ScanCommand.self,
    PairCommand.self,
    MonitorCommand.self,
    InputCommand.self,
    RecordCommand.self,
    ReplayCommand.self,
    ConfigCommand.self,
    DemoCommand.self,
    ServeCommand.self,
    BenchLauncher.self,
    ListCommand.self,
    StatusCommand.self,
    ForgetCommand.self,
    DefineCommand.self,
    CalibrateCommand.self,
    DiagnoseCommand.self,
    OverlayCommand.self,
]
