// `--control-bus` as a command-line option.
import ArgumentParser
import PercControl

extension ControlBusChoice: ExpressibleByArgument {
    static let help = ArgumentHelp(
        "Where to offer the control API (percbridge list/pair/define/…): system, session, a bus address, or none.",
        valueName: "system|session|ADDRESS|none")
}
