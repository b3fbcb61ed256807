// `percbridge status`: is the service running, in which mode, what it sees, which modules are near.
import ArgumentParser
import Foundation
import PercControl

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the running service's status: mode, frames, tangibles, apps, PERC modules.",
        discussion: """
        Exit status 0 when a service answered, 69 when none runs on that bus (with \
        how to start one), 1 on other failures. Under `percbridge demo` the module \
        list shows the simulated PERC modules in range, paired or not (the demo's \
        stand-in for `percbridge scan`).

        Examples:
          percbridge status
          percbridge status --bus session --json
        """
    )

    @OptionGroup var options: ControlOptions

    func run() async throws {
        try await options.run { client in
            let value = try await client.call("Status")
            if options.json { print(ControlJSON.line(value)); return }
            let s = value.stringVariantDictionary ?? [:]
            print("PercBridge \(s["version"]?.string ?? "?") (\(s["mode"]?.string ?? "?")) on the \(s["bus"]?.string ?? "?")")
            print(String(format: "  frames: %llu at %.0f Hz, up %.0f s", s["frames"]?.int64 ?? 0, s["frame_rate"]?.double ?? 0, s["uptime"]?.double ?? 0))
            print("  tangibles: \(s["tangibles"]?.int ?? 0) defined, \(s["on_surface"]?.int ?? 0) on the surface; apps connected: \(s["apps"]?.int ?? 0)")
            print("  registry: \(s["registry"]?.string ?? "?")")
            if let http = s["http"]?.string { print("  web viewer: \(http)   app protocol: \(http.replacingOccurrences(of: "http:", with: "ws:"))ws") }
            let running = s["running"]?.stringArray ?? []
            if !running.isEmpty { print("  running: \(running.joined(separator: ", "))") }
            let links = (s["links"]?.array ?? []).compactMap(\.stringVariantDictionary)
            if links.isEmpty {
                print("  PERC modules: none known")
            } else {
                print("  PERC modules:")
                // Counters only where the service keeps links (serve); the demo's modules have none.
                let counted = links.contains { $0["notifications"] != nil }
                let header = ["ADDRESS", "NAME", "PROFILE", "STATE", "TANGIBLE"] + (counted ? ["NOTIFICATIONS", "LOST", "LINK-UPS"] : [])
                print(ControlText.table(header: header, rows: links.map { l in
                    [l["address"]?.string ?? "", l["name"]?.string ?? "", l["profile"]?.string ?? "-", l["state"]?.string ?? "",
                     l["tangible"]?.int.map(String.init) ?? "-"]
                        + (counted ? ["notifications", "lost", "link_ups"].map { l[$0]?.int.map(String.init) ?? "-" } : [])
                }, indent: "    "))
            }
        }
    }
}
