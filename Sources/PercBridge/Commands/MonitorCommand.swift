// `percbridge monitor ADDRESS…`: live sensor events of PERCs with times, sequence gaps and latency.
import ArgumentParser
import Foundation
import Synchronization
import PercBlueZ

struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Show the live sensor events of PERCs, with times, sequence gaps and latency.",
        discussion: """
        Connects each PERC through BlueZ (no service needed), subscribes to its sensor \
        notifications and prints every event: field (1 on the surface, 0 off), light (1 white, \
        0 black), battery (percent), heartbeat, and link (1 in range, 0 lost). It keeps going \
        when a link drops, bluetoothd restarts or the adapter is re-plugged, says what happened, \
        and reconnects with a growing pause (at most 30 s). Stop with Ctrl-C or --duration.

        PERC GATT v1 values carry sequence numbers (gaps are shown as lost notifications) and \
        device time. Device clocks are free running, so monitor shows how much later than the \
        fastest notification each one arrived ("+x ms over fastest"); when the device shares \
        this machine's CLOCK_MONOTONIC (the BlueZ emulator does) it shows the true latency. \
        The MTK serial profile has neither: no gaps or latency are invented for it.

        Examples:
          percbridge monitor C0:FF:EE:00:00:01
          percbridge monitor C0:FF:EE:00:00:01 C0:FF:EE:00:00:02 --duration 60 --json
          percbridge monitor C0:FF:EE:00:00:01 --start-notify   (signals instead of the socket)

        --json prints one object per line. Events: time (wall clock, ISO 8601), arrival \
        (CLOCK_MONOTONIC seconds), address, profile, kind (field, light, battery, heartbeat, \
        link), value, seq and device_time_us (PERC v1), latency_ms (shared clock only), \
        jitter_ms (v1), lost (lost notifications so far). Status changes: kind "status" and \
        status (text). At the end a summary per PERC goes to stderr (JSON: kind "summary").
        """
    )

    @Argument(help: "Bluetooth addresses of the PERCs (AA:BB:CC:DD:EE:FF).") var addresses: [String]
    @OptionGroup var busOptions: BusOptions
    @Option(help: "Stop after this many seconds (default: run until Ctrl-C).") var duration: Double?
    @Flag(help: "One JSON object per line.") var json = false
    @Flag(help: "Use StartNotify (PropertiesChanged signals) instead of AcquireNotify.") var startNotify = false
    @Flag(name: .shortAndLong, help: "Log what BlueZ does (to stderr).") var verbose = false

    struct Summary: Codable {
        var kind = "summary"
        var address: String
        var notifications: Int
        var events: Int
        var lost: Int
        var duplicates: Int
        var rejected: Int
        var garbage: Int
        var unknownGroups: Int
        var linkUps: Int
        var path: String?

        enum CodingKeys: String, CodingKey {
            case kind, address, notifications, events, lost, duplicates, rejected, garbage, path
            case unknownGroups = "unknown_groups"
            case linkUps = "link_ups"
        }
    }

    func validate() throws {
        guard !addresses.isEmpty else { throw ValidationError("name at least one PERC address (see `percbridge scan`)") }
        for a in addresses where !BlueZ.isAddress(a) {
            throw ValidationError(PercPairingError.invalidAddress(a).description)
        }
        if let duration, !(duration > 0 && duration.isFinite) {
            throw ValidationError("--duration must be a positive number of seconds")
        }
    }

    func run() async throws {
        let logger = BlueZCLI.logger("percbridge.monitor", verbose: verbose)
        // bluetoothd may be absent now and appear later: monitor waits for it.
        let session = try await BlueZSession.open(bus: busOptions.bus, logger: logger)
        defer { session.close() }
        let addresses = self.addresses.map { $0.uppercased() }
        let output = MonitorOutput(addresses: addresses, json: json)
        let links = addresses.enumerated().map { i, address in
            let tangible = i + 1
            let holder = LinkHolder()
            let link = PercLink(
                configuration: .init(address: address, tangible: tangible, preferAcquireNotify: !startNotify),
                mirror: session.mirror, discovery: session.discovery, logger: logger,
                onEvent: { event in output.event(event, lostSoFar: holder.link.withLock { $0 }?.stats.lost ?? 0) },
                onStatus: { status in output.status(tangible: tangible, status) })
            holder.link.withLock { $0 = link }
            return link
        }
        await withTaskGroup(of: Void.self) { group in
            for link in links { group.addTask { await link.run() } }
            if let duration {
                group.addTask { try? await Task.sleep(for: .milliseconds(Int(duration * 1000))) }
                await group.next()
                group.cancelAll()
            }
        }
        // Every line queued so far goes out before the summaries.
        output.finish()
        for link in links {
            let s = link.stats
            let summary = Summary(address: link.configuration.address, notifications: s.notifications, events: s.events,
                                  lost: s.lost, duplicates: s.duplicates, rejected: s.rejected, garbage: s.garbage,
                                  unknownGroups: s.unknownGroups, linkUps: link.linkUps, path: link.notifyPath?.rawValue)
            if json {
                print(BlueZCLI.jsonLine(summary))
            } else {
                BlueZCLI.note("\(summary.address): \(s.notifications) notifications, \(s.events) events, \(s.lost) lost, "
                              + "\(s.rejected) rejected, \(s.garbage) garbage bytes/frames, \(s.unknownGroups) unknown groups, "
                              + "\(link.linkUps) link-ups" + (summary.path.map { " via \($0)" } ?? ""))
            }
        }
    }
}

/// Lets a link's event handler reach the link made with it (for its loss counter).
private final class LinkHolder: Sendable {
    let link = Mutex<PercLink?>(nil)
}
