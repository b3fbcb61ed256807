// `bench soak`: a client of serve's D-Bus control API — state-change signals, and Status and List now and then.
import Foundation
import Synchronization
import PercSystem
import PercControl

/// What a monitor and `percbridge status` do to a running service: listen to
/// `TangibleChanged` and the `TangiblesOnSurface` property (serve computes the on-surface
/// count after every frame for it), and call `Status` every second and `List` every other.
/// A call that fails is counted; the first `Status` must answer, or the control API is not
/// where the bench put it and the soak would not exercise it.
final class SoakControlClient: Sendable {
    struct Counts: Sendable {
        var tangibleSignals = 0
        var onSurfaceChanges = 0
        var calls = 0
        var failedCalls = 0
    }

    private let client: ControlClient
    private let listener: DBusConnection
    private let subscriptions = Mutex<[DBusSignalSubscription]>([])
    private let tally = Mutex(Counts())
    private let loop = Mutex<Task<Void, Never>?>(nil)

    private init(client: ControlClient, listener: DBusConnection) { self.client = client; self.listener = listener }

    /// Connects to the control API on the bus at `address` and subscribes; throws when
    /// `Status` does not answer within `seconds`.
    static func start(bus address: String, within seconds: Double = 10) async throws -> SoakControlClient {
        let bus = DBusBus.address(address)
        let client = try ControlClient.connect(bus)
        var lastError = "no answer"
        let deadline = MonotonicClock.now() + seconds
        while true {
            do {
                _ = try await client.call("Status")
                break
            } catch {
                lastError = "\(error)"
                guard MonotonicClock.now() < deadline else {
                    client.close()
                    throw BenchFailure("serve's control API did not answer Status on the bench's bus within \(Int(seconds)) s: \(lastError)")
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let soak: SoakControlClient
        do { soak = SoakControlClient(client: client, listener: try DBusConnection(bus: bus)) } catch {
            client.close()
            throw error
        }
        do {
            // Counted in the handlers, on the listener's loop thread (they must not block).
            let changes = try await soak.listener.subscribe(
                DBusMatchRule(path: ControlAPI.path, interface: ControlAPI.interface, member: "TangibleChanged")) { _ in
                soak.tally.withLock { $0.tangibleSignals += 1 }
            }
            let onSurface = try await soak.listener.onPropertiesChange(path: ControlAPI.path, interface: ControlAPI.interface) { change in
                if change.changed["TangiblesOnSurface"] != nil { soak.tally.withLock { $0.onSurfaceChanges += 1 } }
            }
            soak.subscriptions.withLock { $0 = [changes, onSurface] }
        } catch {
            await soak.stop()
            throw error
        }
        soak.loop.withLock { $0 = Task { await soak.poll() } }
        return soak
    }

    var counts: Counts { tally.withLock { $0 } }

    func stop() async {
        let task = loop.withLock { t -> Task<Void, Never>? in defer { t = nil }; return t }
        task?.cancel()
        await task?.value
        subscriptions.withLock { s in s.forEach { $0.cancel() }; s = [] }
        listener.close()
        client.close()
    }

    private func poll() async {
        var n = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            guard !Task.isCancelled else { return }
            n += 1
            for method in n % 2 == 0 ? ["Status", "List"] : ["Status"] {
                do {
                    _ = try await client.call(method)
                    tally.withLock { $0.calls += 1 }
                } catch {
                    tally.withLock { $0.failedCalls += 1 }
                }
            }
        }
    }
}
