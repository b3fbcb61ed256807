// `percbridge-bench dbus-signals`: GATT-style PropertiesChanged latency through a real dbus-daemon.
import ArgumentParser
import Foundation
import Histogram
import Synchronization
import PercSystem
import PercEmulator

/// Sends StartNotify-style notifications (PropertiesChanged of `Value`, as BlueZ does) from one
/// connection through a private dbus-daemon to another and measures send → delivery, first
/// to a handler on the receiving event loop thread, then to a task iterating an AsyncStream
/// (the baseline in the same run). Bleak's figures on this machine are printed for scale.
struct DBusSignalBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dbus-signals",
        abstract: "Latency of D-Bus signal delivery (the StartNotify path) through a private bus.",
        discussion: """
        Starts its own dbus-daemon (or uses --bus), then sends --count notifications at --rate \
        per second, each carrying its CLOCK_MONOTONIC send time. Latency is measured from just \
        before the send to delivery: "handler" is the callback on the connection's loop thread \
        (onPropertiesChange), "stream" a task iterating propertiesChanges(). Lost counts \
        notifications that never arrived.

        Examples:
          swift build -c release && .build/release/percbridge-bench dbus-signals
          percbridge-bench dbus-signals --count 2000 --rate 500
        """
    )

    @Option(help: "Notifications per path (at least 10).")
    var count: Int = 10_000

    @Option(help: "Notifications per second (10 PERCs at 100 Hz = 1000).")
    var rate: Double = 1000

    @Option(help: "Use this bus address instead of starting a private dbus-daemon.")
    var bus: String?

    func validate() throws {
        guard count >= 10 else { throw ValidationError("--count must be at least 10") }
        guard rate > 0, rate <= 100_000, rate.isFinite else { throw ValidationError("--rate must be in (0, 100000]") }
    }

    func run() async throws {
        let daemon = bus == nil ? try DBusPrivateDaemon() : nil
        defer { daemon?.stop() }
        let address = bus ?? daemon!.address
        print("bench dbus-signals: \(count) notifications at \(Int(rate))/s per path, bus \(address)")
        let emitter = try DBusConnection(bus: .address(address))
        let receiver = try DBusConnection(bus: .address(address))
        let path: DBusObjectPath = "/org/bluez/hci0/dev_00_11_22_33_44_55/service0010/char0011"

        let handler = Latencies()
        let subscription = try await receiver.onPropertiesChange(sender: emitter.uniqueName, path: path,
                                                                 interface: "org.bluez.GattCharacteristic1") { change in
            handler.record(change, at: MonotonicClock.nanosecondsNow())
        }
        try await emit(from: emitter, at: path)
        try await handler.settle(expecting: count)
        subscription.cancel()

        let stream = Latencies()
        let changes = try await receiver.propertiesChanges(sender: emitter.uniqueName, path: path,
                                                           interface: "org.bluez.GattCharacteristic1")
        let consumer = Task {
            for await change in changes {
                stream.record(change, at: MonotonicClock.nanosecondsNow())
                if stream.received == count { break }
            }
        }
        try await emit(from: emitter, at: path)
        try await stream.settle(expecting: count)
        consumer.cancel()

        print("path      received  lost     p50 ms    p99 ms    max ms")
        print(handler.line("handler", count))
        print(stream.line("stream", count))
        print(String(format: "handler vs stream: p50 %.2fx, p99 %.2fx lower", stream.p50 / max(handler.p50, 1e-9), stream.p99 / max(handler.p99, 1e-9)))
        print(String(format: "handler vs Bleak StartNotify (p50 0.45 ms, p99 3 ms, BLUEZ-NOTES.md): p50 %.1fx, p99 %.1fx lower", 0.45 / max(handler.p50, 1e-9), 3.0 / max(handler.p99, 1e-9)))
        emitter.close()
        receiver.close()
    }

    /// Paces sends on a plain thread (a sleeping emitter must not occupy the task pool).
    private func emit(from emitter: DBusConnection, at path: DBusObjectPath) async throws {
        let count = self.count
        let interval = UInt64(1e9 / rate)
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            Thread {
                do {
                    var next = MonotonicClock.nanosecondsNow()
                    for seq in 0..<count {
                        var payload = [UInt8](repeating: 0, count: 12)
                        let sent = MonotonicClock.nanosecondsNow()
                        withUnsafeBytes(of: sent.littleEndian) { payload.replaceSubrange(0..<8, with: $0) }
                        withUnsafeBytes(of: UInt32(seq).littleEndian) { payload.replaceSubrange(8..<12, with: $0) }
                        try emitter.emitSignal(path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                                               arguments: [.string("org.bluez.GattCharacteristic1"),
                                                           .stringVariantDictionary(["Value": .bytes(payload)]), .stringArray([])])
                        next += interval
                        let now = MonotonicClock.nanosecondsNow()
                        if next > now { usleep(UInt32((next - now) / 1000)) }
                    }
                    done.resume()
                } catch {
                    done.resume(throwing: error)
                }
            }.start()
        }
    }
}

/// Latencies of one delivery path (thread-safe: handlers record from the loop thread).
private final class Latencies: Sendable {
    private struct State {
        var histogram = Histogram<UInt64>(highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: .three)
        var received = 0
        var lastSequence: UInt32?
        var outOfOrder = 0
    }
    private let state = Mutex(State())

    func record(_ change: DBusPropertiesChange, at now: UInt64) {
        guard let bytes = change.changed["Value"]?.bytes, bytes.count == 12 else { return }
        let sent = bytes[0..<8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let seq = bytes[8..<12].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        state.withLock { s in
            _ = s.histogram.record(now >= sent ? now - sent : 0)
            if let last = s.lastSequence, seq <= last { s.outOfOrder += 1 }
            s.lastSequence = seq
            s.received += 1
        }
    }

    var received: Int { state.withLock { $0.received } }
    var p50: Double { state.withLock { Double($0.histogram.valueAtPercentile(50)) / 1e6 } }
    var p99: Double { state.withLock { Double($0.histogram.valueAtPercentile(99)) / 1e6 } }

    /// Waits until everything arrived or nothing new came for a second.
    func settle(expecting count: Int) async throws {
        var last = -1
        while received < count, received != last {
            last = received
            try await Task.sleep(for: .seconds(1))
        }
    }

    func line(_ name: String, _ sent: Int) -> String {
        state.withLock { s in
            let ms = { (v: UInt64) in String(format: "%9.3f", Double(v) / 1e6) }
            return name.padding(toLength: 10, withPad: " ", startingAt: 0)
                + String(format: "%8d  %5d  ", s.received, sent - s.received)
                + "\(ms(s.histogram.valueAtPercentile(50))) \(ms(s.histogram.valueAtPercentile(99))) \(ms(s.histogram.max))"
                + (s.outOfOrder > 0 ? "  (\(s.outOfOrder) out of order)" : "")
        }
    }
}
