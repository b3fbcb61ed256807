// `percbridge pair ADDRESS`: pairs, trusts and connects a PERC through BlueZ and checks its profile.
import ArgumentParser
import Foundation

struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair, trust and connect a PERC, and check that it speaks a PERC profile.",
        discussion: """
        Finds the device (scanning for it when BlueZ does not know it yet), pairs with it
        (PercBridge answers BlueZ as a NoInputNoOutput agent: PERCs have no keypad), marks it
        trusted so BlueZ keeps it and lets it reconnect, connects, waits until its GATT
        services are resolved and checks for the PERC GATT v1, MTK serial (ffe0) or Nordic
        UART service. Never waits longer than --timeout.

        Examples:
          percbridge pair C0:FF:EE:00:00:01
          percbridge pair C0:FF:EE:00:00:01 --timeout 60 --json
          percbridge pair C0:FF:EE:00:00:01 --bus unix:path=/tmp/percbus

        Exit status 0 when paired; 1 with a message that says what to do when the device
        is not found, refuses (org.bluez.Error.*), vanishes mid-pairing, times out, or is not
        a PERC. With --json the outcome is one line:
          {"address":"…","ok":true,"name":"PERC-one","profile":"perc-v1","already_paired":false}
          {"address":"…","ok":false,"error":"not-found","message":"…"}
        Next step: percbridge monitor ADDRESS.
        """
    )

    @Argument(help: "The PERC's Bluetooth address, AA:BB:CC:DD:EE:FF (see `percbridge scan`).") var address: String
    @OptionGroup var busOptions: BusOptions
    @Option(help: "Give up after this many seconds (scanning, pairing, connecting together).") var timeout: Double = 30
    @Flag(help: "Print the outcome as one JSON object.") var json = false
    @Flag(name: .shortAndLong, help: "Log what BlueZ does (to stderr).") var verbose = false

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
            throw BlueZCLI.Failure(error.description)
        }
    }
}
