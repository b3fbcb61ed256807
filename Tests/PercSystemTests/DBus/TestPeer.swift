// Starts the python D-Bus test peer on a private bus and ends it by pid.
import Foundation
@testable import PercSystem
import PercTestSupport

/// A private bus with the python peer (`TestPeerScript`) on it, plus one Swift connection.
final class TestPeer: @unchecked Sendable {
    static let name = "org.percbridge.TestPeer"
    static let interface = "org.percbridge.Test"
    static let path: DBusObjectPath = "/org/percbridge/Test"

    let bus: PrivateBus
    let process: TestProcess
    let connection: DBusConnection

    init() throws {
        bus = try PrivateBus()
        let script = bus.directory.appendingPathComponent("peer.py")
        try TestPeerScript.source.write(to: script, atomically: true, encoding: .utf8)
        process = try TestProcess(Self.python, [script.path, bus.address])
        guard process.readLine(timeout: 60) == "READY" else {
            process.stop()
            bus.stop()
            throw PrivateBusError("python test peer did not start: \(process.errorOutput())")
        }
        connection = try DBusConnection(bus: .address(bus.address))
    }

    /// `$PERCBRIDGE_PYTHON`, else the repository's `.venv/bin/python` (made by scripts/setup).
    static var python: String {
        if let configured = ProcessInfo.processInfo.environment["PERCBRIDGE_PYTHON"] { return configured }
        var dir = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { dir = dir.deletingLastPathComponent() }
        return dir.appendingPathComponent(".venv/bin/python").path
    }

    /// Calls a method of the peer's test object.
    func call(_ member: String, _ arguments: [DBusValue] = [], interface: String = TestPeer.interface,
              timeout: Duration = .seconds(60)) async throws -> DBusReply {
        try await connection.call(destination: Self.name, path: Self.path, interface: interface, member: member,
                                  arguments: arguments, timeout: timeout)
    }

    func stop() {
        connection.close()
        process.stop()
        bus.stop()
    }

    deinit { stop() }
}
