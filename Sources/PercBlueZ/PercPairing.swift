// The pairing flow for one PERC: find, pair, trust, connect, check the profile (CLI and service).
import Foundation
import Logging
import MTKTangibles
import PercSystem

/// Pairs a PERC through BlueZ. Used by `percbridge pair` and by the service's Pair method.
///
/// Steps: find the device (discovering for it if BlueZ does not know it), `Pair` (raced
/// against the device disappearing, with a deadline: never hangs), `Trusted=true` (so BlueZ
/// keeps it and lets it reconnect), `Connect`, wait for `ServicesResolved`, and check that
/// the PERC GATT v1, MTK serial or Nordic UART service is there.
public struct PercPairing: Sendable {
    public struct Result: Sendable, Hashable, Codable {
        public var address: String
        public var name: String
        public var profile: PercProfile
        var devicePath: String
        public var alreadyPaired: Bool
    }

    let mirror: BlueZMirror
    let discovery: BlueZDiscovery
    let logger: Logger
    /// Registered before pairing when given (answers BlueZ's questions: NoInputNoOutput).
    var agent: BlueZAgent?

    public init(mirror: BlueZMirror, discovery: BlueZDiscovery, agent: BlueZAgent? = nil, logger: Logger) {
        self.mirror = mirror; self.discovery = discovery; self.agent = agent; self.logger = logger
    }

    public func pair(address rawAddress: String, timeout: Duration = .seconds(30),
              progress: @Sendable (String) -> Void = { _ in }) async throws(PercPairingError) -> Result {
        let address = rawAddress.uppercased()
        guard BlueZ.isAddress(address) else { throw .invalidAddress(rawAddress) }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        @Sendable func remaining() -> Duration { max(.milliseconds(1), deadline - clock.now) }
        let calls = BlueZCalls(connection: mirror.connection)

        if !mirror.bluetoothdPresent {
            _ = await mirror.wait(timeout: min(remaining(), .seconds(2))) { $0.bluetoothdPresent ? true : nil }
            guard mirror.bluetoothdPresent else { throw .noBluetoothd(bus: mirror.connection.bus.description) }
        }
        guard !mirror.adapters.isEmpty else { throw .noAdapter }

        var device = mirror.device(address: address)
        if device == nil {
            progress("\(address) is not known to BlueZ yet: scanning for it")
            await discovery.want()
            device = await mirror.wait(timeout: remaining()) { $0.device(address: address) }
            await discovery.unwant()
        }
        guard let found = device else { throw .notFound(address: address, seconds: timeout.seconds) }
        let path = found.path

        if let agent {
            do { try await agent.register() } catch {
                logger.warning("pair: could not register the pairing agent (\(error)); BlueZ's default agent will answer")
            }
        }

        let alreadyPaired = found.paired
        if !alreadyPaired {
            progress("pairing with \(address) (\(found.name.isEmpty ? "no name" : found.name))")
            try await step("pairing", address: address, path: path, deadline: remaining()) {
                do { try await calls.pair(path, timeout: remaining()) } catch let e as DBusError where e.name == BlueZ.ErrorName.alreadyExists {
                    return
                } catch let e as DBusError where e.isTimeout {
                    try? await calls.cancelPairing(path)
                    throw e
                }
            }
        }
        do { try await calls.setTrusted(path) } catch {
            throw .failed(address: address, step: "trusting", error: "\(error)")
        }
        if mirror.device(path: path)?.connected != true {
            progress("connecting to \(address)")
            try await step("connecting", address: address, path: path, deadline: remaining()) {
                do { try await calls.connect(path, timeout: remaining()) } catch let e as DBusError where e.name == BlueZ.ErrorName.alreadyConnected {
                    return
                }
            }
        }
        let resolved = await mirror.wait(timeout: remaining()) { m -> Bool? in
            guard let d = m.device(path: path) else { return false }
            return d.servicesResolved ? true : nil
        }
        guard let resolved else { throw .timedOut(address: address, step: "resolving services", seconds: timeout.seconds) }
        guard resolved else { throw .vanished(address: address) }

        // A first connection: bluetoothd may export the GATT objects after ServicesResolved.
        guard let layout = await PercLink.awaitLayout(in: mirror, device: path, profile: nil,
                                                      timeout: min(.seconds(5), remaining())) else {
            let services = mirror.services(of: path).map(\.uuid)
            try? await calls.disconnect(path)
            throw .notAPerc(address: address, services: services)
        }
        // The name it advertised when found: once connected, bluetoothd replaces Name with the
        // GAP Device Name it reads (on the real-BlueZ harness every PERC reads "BlueZ 5.66").
        let name = found.name.isEmpty ? (mirror.device(path: path)?.name ?? "") : found.name
        logger.info("pair: \(address) (\(name)) paired, trusted and connected; profile \(layout.profile.rawValue)")
        return Result(address: address, name: name, profile: layout.profile, devicePath: path.rawValue,
                      alreadyPaired: alreadyPaired)
    }

    /// Runs one BlueZ call raced against the device disappearing, mapping failures to
    /// pairing errors. The watcher is cancelled on every way out.
    private func step(_ what: String, address: String, path: DBusObjectPath, deadline: Duration,
                      _ body: @escaping @Sendable () async throws -> Void) async throws(PercPairingError) {
        let mirror = self.mirror
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await body() }
                group.addTask {
                    let gone = await mirror.wait(timeout: deadline + .seconds(1)) { m in
                        m.device(path: path) == nil || !m.bluetoothdPresent ? true : nil
                    }
                    if gone == true { throw PercPairingError.vanished(address: address) }
                    try await Task.sleep(for: .seconds(3600))
                }
                defer { group.cancelAll() }
                try await group.next()
            }
        } catch let error as PercPairingError {
            throw error
        } catch let error as DBusError {
            if error.isTimeout { throw .timedOut(address: address, step: what, seconds: deadline.seconds) }
            if error.name.hasPrefix(BlueZ.ErrorName.prefix) {
                throw .refused(address: address, error: error.name, message: error.message)
            }
            if mirror.device(path: path) == nil { throw .vanished(address: address) }
            throw .failed(address: address, step: what, error: "\(error)")
        } catch {
            throw .failed(address: address, step: what, error: "\(error)")
        }
    }
}
