// The event loop's receive side: its scheduling policy, receive stamps, reading while others send.
import Foundation
import Glibc
import Synchronization
import Testing
@testable import PercSystem
import PercTestSupport

@Suite struct DBusLoopTests {
    static let path: DBusObjectPath = "/org/bluez/hci0/dev_CC/service0010/char0011"

    /// Emits a GATT-style notification carrying `stamp` (CLOCK_MONOTONIC ns) and `seq`.
    static func emit(_ from: DBusConnection, stamp: UInt64, seq: UInt32) throws {
        var payload = withUnsafeBytes(of: stamp.littleEndian) { Array($0) }
        payload += withUnsafeBytes(of: seq.littleEndian) { Array($0) }
        try from.emitSignal(path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                            arguments: [.string("org.bluez.GattCharacteristic1"),
                                        .stringVariantDictionary(["Value": .bytes(payload)]), .stringArray([])])
    }

    @Test func theLoopThreadRunsUnderThePolicyItReports() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try DBusConnection(bus: .address(bus.address))
        defer { connection.close() }
        _ = try await connection.nameOwner(of: "org.freedesktop.DBus")  // the loop runs by now
        let status = ReceiveThreadPriority.status(of: .dbusLoop)
        let policy = try #require(connection.loop.loopThreadPolicy)
        if status.hasPrefix("SCHED_FIFO") {
            #expect(policy == SCHED_FIFO)
        } else {
            #expect(status.hasPrefix("ordinary ("), "status should say why: \(status)")
            #expect(policy == SCHED_OTHER)
        }
    }

    @Test func aSignalIsStampedWhenTheLoopWokeForIt() async throws {
        let pair = try ConnectionPair()
        defer { pair.stop() }
        let (emitter, receiver) = (pair.emitter, pair.receiver)
        // (sent, received, handler) per notification.
        let seen = Mutex<[(UInt64, UInt64, UInt64)]>([])
        let subscription = try await receiver.onPropertiesChange(sender: emitter.uniqueName, path: Self.path) { change in
            let now = MonotonicClock.nanosecondsNow()
            guard let bytes = change.changed["Value"]?.bytes, bytes.count == 12 else { return }
            let sent = bytes[0..<8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            seen.withLock { $0.append((sent, change.receivedAtNanoseconds, now)) }
        }
        defer { subscription.cancel() }
        for seq in 0..<100 {
            try Self.emit(emitter, stamp: MonotonicClock.nanosecondsNow(), seq: UInt32(seq))
            try await Task.sleep(for: .milliseconds(2))
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while seen.withLock({ $0.count }) < 100, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let all = seen.withLock { $0 }
        #expect(all.count == 100)
        // Paced sends: the loop sleeps in poll() when each one arrives, so its wake-up stamp
        // lies between the send and the handler.
        #expect(all.allSatisfy { sent, received, handler in sent <= received && received <= handler })
    }

    @Test func signalsAndRepliesKeepFlowingWhileOtherThreadsSendOnTheConnection() async throws {
        let pair = try ConnectionPair()
        defer { pair.stop() }
        let (emitter, receiver) = (pair.emitter, pair.receiver)
        let received = Counter()
        let subscription = try await receiver.onPropertiesChange(sender: emitter.uniqueName, path: Self.path) { _ in received.add() }
        defer { subscription.cancel() }
        let signals = 3000, callers = 4, callsEach = 150
        let started = ContinuousClock.now
        // Ordinary threads hold libdbus' I/O path while they write calls on the receiving
        // connection; its loop (real-time where allowed) must neither spin against them nor stall.
        async let calls: Int = withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    var ok = 0
                    for _ in 0..<callsEach {
                        let reply = try await receiver.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                            interface: "org.freedesktop.DBus", member: "GetId", timeout: .seconds(20))
                        if reply.arguments.first?.string?.isEmpty == false { ok += 1 }
                    }
                    return ok
                }
            }
            return try await group.reduce(0, +)
        }
        for seq in 0..<signals {
            try Self.emit(emitter, stamp: MonotonicClock.nanosecondsNow(), seq: UInt32(seq))
            if seq % 100 == 99 { try await Task.sleep(for: .milliseconds(1)) }
        }
        #expect(try await calls == callers * callsEach)
        try await received.wait(for: signals)
        #expect(received.value == signals)
        #expect(ContinuousClock.now - started < .seconds(30))
    }
}

/// A private bus with two connections on it, ended (connections closed, daemon killed by pid) in `stop()`.
private final class ConnectionPair: Sendable {
    let bus: PrivateBus
    let emitter: DBusConnection
    let receiver: DBusConnection

    init() throws {
        bus = try PrivateBus()
        do {
            emitter = try DBusConnection(bus: .address(bus.address))
            receiver = try DBusConnection(bus: .address(bus.address))
        } catch {
            bus.stop()
            throw error
        }
    }

    func stop() {
        emitter.close()
        receiver.close()
        bus.stop()
    }
}
