// LE discovery for PERCs: shared by everyone who needs it, stopped while links are set up.
import Logging
import MTKTangibles
import Synchronization
import PercSystem

/// Runs discovery (LE, the PERC service UUIDs) on every powered adapter while anyone wants
/// it. `want()`/`unwant()` count users; links drop their want before connecting, because
/// scanning during link setup is known to kill links.
///
/// BlueZ keeps one discovery session per D-Bus client, and `Adapter1.Discovering` says only
/// whether the adapter scans for anyone. So this keeps its own record of the sessions it
/// started (adapter → the mirror's epoch at the time), and stops exactly those. Deciding
/// from `Discovering` left discovery running: bluetoothd answers `StartDiscovery` before it
/// announces `Discovering=true`, so a PERC found at once (as after a bluetoothd restart,
/// when the devices follow the adapter within milliseconds) dropped its want while the
/// mirror still said "not discovering", and nothing was stopped. On the real-BlueZ harness
/// that lingering scan kept the kernel's pending reconnections from ever seeing an
/// advertisement edge and cost a second per bluetoothd SIGKILL (docs/bluez.md).
///
/// A session recorded under an older epoch (bluetoothd restarted, an adapter re-plugged)
/// may be gone: `StartDiscovery` is issued again, and its `InProgress` answer means ours
/// still runs. One caller at a time brings the sessions in line with the users, in its own
/// task (so its calls end when it is cancelled); a change asked for meanwhile is taken up
/// by that caller before it returns.
public final class BlueZDiscovery: Sendable {
    static let serviceUUIDs = PercGattLayout.all.map(\.service)

    let mirror: BlueZMirror
    let calls: BlueZCalls
    let logger: Logger

    private struct State {
        var users = 0
        /// Adapters where our `StartDiscovery` succeeded, with the mirror's epoch then.
        var sessions: [DBusObjectPath: Int] = [:]
        /// Someone is reconciling; `again`: users changed since it began.
        var reconciling = false
        var again = false
    }
    private let state = Mutex(State())

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

    /// Counts a user and makes sure our discovery runs on every adapter (not on one that
    /// someone switched off).
    public func want() async {
        state.withLock { $0.users += 1 }
        await reconcileOnce()
    }

    /// Drops a user; the last one out stops our sessions.
    public func unwant() async {
        state.withLock { $0.users = max(0, $0.users - 1) }
        await reconcileOnce()
    }

    /// Adapters where our discovery session runs, as far as we know (for tests and status).
    var sessionAdapters: [DBusObjectPath] { state.withLock { Array($0.sessions.keys) } }

    private func reconcileOnce() async {
        let mine = state.withLock { s -> Bool in
            if s.reconciling { s.again = true; return false }
            s.reconciling = true
            return true
        }
        guard mine else { return }
        while true {
            await reconcile()
            let more = state.withLock { s -> Bool in
                if s.again && !Task.isCancelled { s.again = false; return true }
                s.reconciling = false
                return false
            }
            if !more { break }
        }
        // Cancelled (its link stopped) with a change still to take up: someone else's.
        if Task.isCancelled, state.withLock({ s -> Bool in defer { s.again = false }; return s.again }) {
            Task { await self.reconcileOnce() }
        }
    }

    /// Brings the sessions in line with the users: started everywhere while anyone wants
    /// discovery, stopped when nobody does. One caller at a time (`reconcileOnce`).
    private func reconcile() async {
        if state.withLock({ $0.users }) > 0 {
            await startWhereMissing()
        } else {
            await stopOurs()
        }
    }

    private func startWhereMissing() async {
        let epoch = mirror.epoch
        for adapter in mirror.adapters where !mirror.switchedOff(adapter.path) {
            if state.withLock({ $0.sessions[adapter.path] }) == epoch { continue }
            do {
                if !adapter.powered {
                    logger.info("BlueZ: powering adapter \(adapter.path) on")
                    try await calls.setPowered(adapter.path, true)
                }
                try await calls.setDiscoveryFilter(adapter.path, uuids: Self.serviceUUIDs)
                try await calls.startDiscovery(adapter.path)
                logger.info("BlueZ: discovery started on \(adapter.path)")
            } catch let error as DBusError where error.name == BlueZ.ErrorName.inProgress {
                // Ours already runs there (BlueZ answers InProgress to the same client only).
            } catch {
                logger.info("BlueZ: could not start discovery on \(adapter.path): \(error)")
                continue
            }
            state.withLock { $0.sessions[adapter.path] = epoch }
        }
    }

    private func stopOurs() async {
        let sessions = state.withLock { s -> [DBusObjectPath] in
            defer { s.sessions = [:] }
            return Array(s.sessions.keys)
        }
        for path in sessions.sorted() {
            guard mirror.adapter(path: path) != nil else { continue }   // gone with its adapter or bluetoothd
            do {
                try await calls.stopDiscovery(path)
                logger.info("BlueZ: discovery stopped on \(path)")
            } catch is CancellationError {
                // Our caller's link stopped meanwhile: the session is still ours to stop.
                state.withLock { $0.sessions[path] = $0.sessions[path] ?? -1; $0.again = true }
            } catch {
                // bluetoothd restarted or the adapter was re-plugged since: that session ended with it.
                logger.debug("BlueZ: StopDiscovery on \(path): \(error)")
            }
        }
    }
}
