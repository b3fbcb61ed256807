// Test support: a private bus with the BlueZ emulator, a BlueZ session on it, and event collection.
import Foundation
import Logging
import MTKTangibles
import Synchronization
import PercBlueZ
import PercEmulator

/// One emulator on its own dbus-daemon (both killed by pid when the testbed goes, also when
/// the test fails), a started BlueZ session and the emulator's control interface.
public final class BlueZTestbed: Sendable {
    public let emulator: BlueZEmulatorProcess
    public let session: BlueZSession
    public let control: BlueZEmulatorControl

    public static let v1 = "C0:FF:EE:00:00:01"
    public static let mtk = "C0:FF:EE:00:00:02"
    public static let nus = "C0:FF:EE:00:00:03"
    public static let phone = "C0:FF:EE:00:00:09"

    public init(percs: [(String, String, String, Int)] = [(v1, "PERC-one", "perc-v1", -55), (mtk, "PERC-old", "mtk-serial", -70),
                                                  (nus, "PERC-nus", "nordic-uart", -80), (phone, "Phone", "none", -40)]) async throws {
        emulator = try BlueZEmulatorProcess(percs: percs)
        var logger = Logger(label: "test.bluez") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = ProcessInfo.processInfo.environment["PERCBRIDGE_TEST_LOG"] == nil ? .warning : .info
        do {
            session = try await BlueZSession.open(bus: .address(emulator.address), logger: logger)
        } catch {
            emulator.stop()
            throw error
        }
        control = BlueZEmulatorControl(connection: session.connection)
    }

    public var address: String { emulator.address }

    public func stop() {
        session.close()
        emulator.stop()
    }

    deinit { stop() }

    /// A link to `address`, running until the returned task is cancelled.
    public func startLink(_ address: String, tangible: TangibleID = 1, preferAcquire: Bool = true,
                   slowConnect: Duration = .seconds(5), events: EventLog) -> (PercLink, Task<Void, Never>) {
        var configuration = PercLink.Configuration(address: address, tangible: tangible, preferAcquireNotify: preferAcquire)
        configuration.initialBackoff = .milliseconds(100)
        configuration.maxBackoff = .seconds(1)
        configuration.slowConnect = slowConnect
        let link = PercLink(configuration: configuration,
                            mirror: session.mirror, discovery: session.discovery, logger: session.logger,
                            onEvent: { events.append($0) }, onStatus: { events.status($0) })
        let task = Task { await link.run() }
        return (link, task)
    }
}

/// Events and statuses seen by a link, for assertions.
public final class EventLog: Sendable {
    public init() {}

    private let state = Mutex<([SensorEvent], [PercLinkStatus])>(([], []))

    public func append(_ e: SensorEvent) { state.withLock { $0.0.append(e) } }
    public func status(_ s: PercLinkStatus) { state.withLock { $0.1.append(s) } }
    public var events: [SensorEvent] { state.withLock { $0.0 } }
    public var statuses: [PercLinkStatus] { state.withLock { $0.1 } }
    public func count(_ kind: SensorKind, value: Int? = nil) -> Int {
        events.filter { $0.kind == kind && (value == nil || $0.value == value) }.count
    }
}

/// Waits for a condition, checking every 20 ms; false after `seconds`.
public func eventually(_ seconds: Double = 5, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
