// `percbridge pair ADDRESS`: pairs a PERC through the running service, or (--direct) through BlueZ itself.
import ArgumentParser
import Foundation
import PercBlueZ
import PercControl

struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair, trust and connect a PERC (through the running service, or --direct through BlueZ).",
        discussion: """
        By default the running service pairs the module (its control API's Pair), \
        registers it as a standard PERC and keeps its link up; then put the \
        tangible on the surface and run `percbridge define`. Needs root or group \
        percbridge on the system bus. Under `percbridge demo` the simulated \
        modules pair the same way (`percbridge status --bus session` lists them).

        With --direct, this command pairs through BlueZ itself, without a service: \
        finds the device (scanning for it when BlueZ does not know it yet), pairs \
        (PercBridge answers BlueZ as a NoInputNoOutput agent: PERCs have no keypad), \
        marks it trusted so BlueZ keeps it and lets it reconnect, connects, waits \
        until its GATT services are resolved and checks for the PERC GATT v1, MTK \
        serial (ffe0) or Nordic UART service. Then --bus is BlueZ's bus. Never waits \
        longer than --timeout.

        Examples:
          percbridge pair C0:FF:EE:00:00:01                  # through the service
          percbridge pair C0:FF:EE:00:00:07 --bus session    # the demo's module
          percbridge pair --direct C0:FF:EE:00:00:01 --timeout 60 --json
          percbridge pair --direct C0:FF:EE:00:00:01 --bus unix:path=/tmp/percbus

        Exit status 0 when paired; 69 when no service runs (start one, or use \
        --direct); 1 with a message that says what to do when the device is not \
        found, refuses (org.bluez.Error.*), vanishes mid-pairing, times out, or is \
        not a PERC. With --json a pairing prints one line; --direct prints one on \
        failure too:
          {"address":"…","ok":true,"name":"PERC-one","profile":"perc-v1",…}
          {"address":"…","ok":false,"error":"not-found","message":"…"}
        Next step: put it on the surface and run
          percbridge define NAME --address ADDRESS
        """
    )

    @Argument(help: "The PERC's Bluetooth address, AA:BB:CC:DD:EE:FF (see `percbridge scan`).") var address: String
    @OptionGroup var busOptions: BusOptions
    @Option(help: "Give up after this many seconds (scanning, pairing, connecting together).") var timeout: Double = 30
    @Flag(help: "Print the outcome as one JSON object.") var json = false
    @Flag(name: .shortAndLong, help: "Log what BlueZ does (to stderr).") var verbose = false
    @Flag(help: "Pair through BlueZ directly instead of through the running service.") var direct = false
    @Option(help: "A name for the module (default: the name it advertises).") var name: String = ""

    struct Outcome: Codable {
        var address: String
        var ok: Bool
        var name: String?
        var profile: String?
        var alreadyPaired: Bool?
        var error: String?
        var message: String?

        enum CodingKeys: String, CodingKey {
            case address, ok, name, profile, error, message
            case alreadyPaired = "already_paired"
        }
    }

    func run() async throws {
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
        guard BlueZ.isAddress(address) else { throw ValidationError(PercPairingError.invalidAddress(address).description) }
        if !direct { return try await pairThroughService() }
        let logger = BlueZCLI.logger("percbridge.pair", verbose: verbose)
        let session = try await BlueZCLI.session(bus: busOptions.bus, logger: logger)
        defer { session.close() }
        let agent = BlueZAgent(connection: session.connection, logger: logger)
        let pairing = PercPairing(mirror: session.mirror, discovery: session.discovery, agent: agent, logger: logger)
        let json = self.json
        do {
            let result = try await pairing.pair(address: address, timeout: .milliseconds(Int(timeout * 1000))) { step in
                if !json { BlueZCLI.note(step) }
            }
            if json {
                print(BlueZCLI.jsonLine(Outcome(address: result.address, ok: true, name: result.name,
                                                profile: result.profile.rawValue, alreadyPaired: result.alreadyPaired)))
            } else {
                print("Paired \(result.address) (\(result.name)): \(result.profile.rawValue), trusted and connected"
                      + (result.alreadyPaired ? " (it was already paired)" : "") + ".")
                print("Watch its sensors with: percbridge monitor \(result.address)")
            }
        } catch {
            if json {
                print(BlueZCLI.jsonLine(Outcome(address: address.uppercased(), ok: false, error: error.code,
                                                message: error.description)))
                throw ExitCode(1)
            }
            throw CLIError(.failure, error.description)
        }
    }

    /// The service pairs (and then keeps the link up itself).
    private func pairThroughService() async throws {
        var options = ControlOptions()
        options.bus = busOptions.bus
        options.json = json
        try await options.run(noServiceHint: "To pair without a service: percbridge pair --direct \(address)") { client in
            let value = try await client.call("Pair", [.string(address), .string(name)], timeout: .milliseconds(Int(timeout * 1000) + 5000))
            let r = value.stringVariantDictionary ?? [:]
            if json {
                print(BlueZCLI.jsonLine(Outcome(address: r["address"]?.string ?? address.uppercased(), ok: true, name: r["name"]?.string,
                                                profile: r["profile"]?.string, alreadyPaired: r["already_paired"]?.bool)))
                return
            }
            let a = r["address"]?.string ?? address.uppercased()
            print("Paired \(a) (\(r["name"]?.string ?? "?"), \(r["profile"]?.string ?? "?")) as tangible \(r["tangible"]?.int ?? 0)"
                  + (r["already_paired"]?.bool == true ? " (it was registered already)" : "") + ".")
            print("Next: put the tangible on the surface, keep it still, and run: percbridge define NAME --address \(a)\(ControlClient.busArgument(busOptions.bus))")
        }
    }
}
