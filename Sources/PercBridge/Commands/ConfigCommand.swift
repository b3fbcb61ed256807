// `percbridge config`: tools for the service's TOML config file.
import ArgumentParser

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check the service's config file.",
        discussion: """
        The service reads /etc/percbridge/percbridge.toml (or the file given with \
        `percbridge serve --config FILE`). Every key is explained in docs/configuration.md; \
        docs/percbridge.example.toml is a complete example to start from.

        Example:
          percbridge config check /etc/percbridge/percbridge.toml
        """,
        subcommands: [ConfigCheckCommand.self, RegistryWriterCommand.self]
    )
}
