// Build-tool plugin: embeds the web clients (clients/js/*.js) into the percbridge binary.
import Foundation
import PackagePlugin

/// The JavaScript files stay real files in the repository (where JS tools and tests reach
/// them); at build time `WebEmbedTool` writes them into a generated Swift file, so the single
/// installed `percbridge` binary serves them without any file beside it.
@main
struct WebEmbedPlugin: BuildToolPlugin {
    /// Served files, relative to the package root; the route is `/` + the file name.
    static let files = ["clients/js/percbridge.js", "clients/js/viewer.js"]

    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let inputs = Self.files.map { context.package.directoryURL.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedWebFiles.swift")
        return [.buildCommand(displayName: "Embedding \(Self.files.joined(separator: ", "))",
                              executable: try context.tool(named: "WebEmbedTool").url,
                              arguments: [output.path] + inputs.map(\.path),
                              inputFiles: inputs, outputFiles: [output])]
    }
}
