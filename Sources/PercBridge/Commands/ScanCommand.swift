// `percbridge scan`: lists PERC modules in range (address, name, RSSI, profile) through BlueZ.
import ArgumentParser
import Foundation
import Logging
import PercBlueZ

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "List PERC modules in range: address, name, signal strength, profile.",
        discussion: """
        Asks BlueZ to discover Bluetooth LE devices that advertise a PERC service (PERC GATT \
        v1, the MTK serial service ffe0, or the Nordic UART service) or a name beginning with \
        PERC-, for --timeout seconds, then prints what it found, strongest signal first. \
        Devices BlueZ already knows (paired ones) are listed too. The service need not run.

        Examples:
          percbridge scan
          percbridge scan --timeout 3 --json
          percbridge scan --bus unix:path=/tmp/percbus     (a bus with the BlueZ emulator)

        With --json each device is one line:
          {"address":"C0:FF:EE:00:00:01","name":"PERC-one","rssi":-60,"profile":"perc-v1",
           "paired":false,"connected":false}
        rssi is absent when BlueZ has no reading or the controller says "not available" (127). \
        profile is perc-v1, mtk-serial, nordic-uart, or null when only the name says PERC. \
        Next step: percbridge pair ADDRESS.
        """
    )

    @OptionGroup var busOptions: BusOptions
    @Option(help: "How long to scan, in seconds.") var timeout: Double = 5
    @Flag(help: "One JSON object per line instead of a table.") var json = false
    @Flag(name: .shortAndLong, help: "Log what BlueZ does (to stderr).") var verbose = false

    struct Found: Codable, Hashable {
        var address: String
        var name: String
        var rssi: Int?
        var profile: String?
        var paired: Bool
        var connected: Bool
    }

    func run() async throws {
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
        let logger = BlueZCLI.logger("percbridge.scan", verbose: verbose)
        let session = try await BlueZCLI.session(bus: busOptions.bus, logger: logger)
        defer { session.close() }
        if !json { BlueZCLI.note("Scanning for \(timeout) s…") }
        await session.discovery.want()
        try? await Task.sleep(for: .seconds(timeout))
        // Read before stopping: bluetoothd drops every device's RSSI when discovery ends.
        let found = Self.merged(session.mirror.devices.filter(BlueZDiscovery.isPerc).map {
            Found(address: $0.address.uppercased(), name: $0.name, rssi: $0.rssi, profile: $0.advertisedProfile?.rawValue,
                  paired: $0.paired, connected: $0.connected)
        }).sorted { ($0.rssi ?? -200, $1.address) > ($1.rssi ?? -200, $0.address) }
        await session.discovery.unwant()

        if json {
            for f in found { print(BlueZCLI.jsonLine(f)) }
            return
        }
        if found.isEmpty {
            print("No PERC found. Is it switched on and near? (Already connected to another host? Then it does not advertise.)")
            return
        }
        print("ADDRESS            RSSI  PROFILE      NAME")
        for f in found {
            let rssi = f.rssi.map { String($0) } ?? "-"
            let flags = [f.paired ? "paired" : nil, f.connected ? "connected" : nil].compactMap { $0 }
            print("\(f.address)  \(rssi.padding(toLength: 4, withPad: " ", startingAt: 0))  "
                  + "\((f.profile ?? "unknown").padding(toLength: 11, withPad: " ", startingAt: 0))  \(f.name)"
                  + (flags.isEmpty ? "" : "  (\(flags.joined(separator: ", ")))"))
        }
    }

    /// One entry per address. With several adapters BlueZ keeps one device object per
    /// adapter that saw the PERC (`/org/bluez/hci0/dev_…`, `/org/bluez/hci1/dev_…`); a user
    /// wants the PERC once: paired/connected if any adapter has it so, the strongest signal.
    static func merged(_ entries: [Found]) -> [Found] {
        var byAddress: [String: Found] = [:]
        var order: [String] = []
        for e in entries {
            guard var m = byAddress[e.address] else { byAddress[e.address] = e; order.append(e.address); continue }
            if m.name.isEmpty { m.name = e.name }
            if let r = e.rssi, r > (m.rssi ?? Int.min) { m.rssi = r }
            m.profile = m.profile ?? e.profile
            m.paired = m.paired || e.paired
            m.connected = m.connected || e.connected
            byAddress[e.address] = m
        }
        return order.compactMap { byAddress[$0] }
    }
}
