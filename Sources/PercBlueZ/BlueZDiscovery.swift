// LE discovery for PERCs: shared by everyone who needs it, stopped while links are set up.
import Logging
import MTKTangibles
import Synchronization
import PercSystem

/// Runs discovery (LE, the PERC service UUIDs) on every powered adapter while anyone wants
/// it. `want()`/`unwant()` count users; links drop their want before connecting, because
/// scanning during link setup is known to kill links. `ensureRunning()` re-issues filter and
/// discovery, which BlueZ forgets when bluetoothd restarts or an adapter is re-plugged.
public final class BlueZDiscovery: Sendable {
    static let serviceUUIDs = PercGattLayout.all.map(\.service)

    let mirror: BlueZMirror
    let calls: BlueZCalls
    let logger: Logger
    private let users = Mutex(0)

    init(mirror: BlueZMirror, logger: Logger) {
        self.mirror = mirror
        self.calls = BlueZCalls(connection: mirror.connection)
        self.logger = logger
    }

    /// Our own filter (BlueZ merges all clients' filters): a PERC advertises one of the
    /// profile services, or at least the `PERC-` name.
    public static func isPerc(_ device: BlueZ.Device) -> Bool {
        device.advertisedProfile != nil || device.name.hasPrefix("PERC-")
    }

    public func want() async {
        users.withLock { $0 += 1 }
        await ensureRunning()
    }

    public func unwant() async {
        let left = users.withLock { u -> Int in
            u = max(0, u - 1)
            return u
        }
        if left == 0 { await stopAll() }
    }

    /// Powers adapters that are off and starts discovery where it is not running.
    func ensureRunning() async {
        guard users.withLock({ $0 }) > 0 else { return }
        for adapter in mirror.adapters where !adapter.discovering && !mirror.switchedOff(adapter.path) {
            do {
                if !adapter.powered {
                    logger.info("BlueZ: powering adapter \(adapter.path) on")
                    try await calls.setPowered(adapter.path, true)
                }
                try await calls.setDiscoveryFilter(adapter.path, uuids: Self.serviceUUIDs)
                try await calls.startDiscovery(adapter.path)
                logger.info("BlueZ: discovery started on \(adapter.path)")
            } catch let error as DBusError where error.name == BlueZ.ErrorName.inProgress {
                continue
            } catch {
                logger.info("BlueZ: could not start discovery on \(adapter.path): \(error)")
            }
        }
    }

    private func stopAll() async {
        for adapter in mirror.adapters where adapter.discovering {
            do {
                try await calls.stopDiscovery(adapter.path)
                logger.info("BlueZ: discovery stopped on \(adapter.path)")
            } catch {
                logger.debug("BlueZ: StopDiscovery on \(adapter.path): \(error)")
            }
        }
    }
}
