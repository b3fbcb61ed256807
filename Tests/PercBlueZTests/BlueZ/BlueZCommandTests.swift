// scan, pair and monitor through the real percbridge binary, against the BlueZ emulator.
import Foundation
import Testing
@testable import PercBlueZ
import PercTestSupport

@Suite(.serialized) struct BlueZCommandTests {
    func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The field and light events `monitor --json` printed so far.
    func readings(_ text: String) -> [[String: Any]] {
        jsonLines(text).filter { ($0["kind"] as? String).map { ["field", "light"].contains($0) } == true }
    }

    @Test func scanListsPercsOfEveryProfileAndNothingElse() async throws {
        let bed = try await BlueZTestbed()
        let r = try CLI.run(["scan", "--bus", bed.address, "--timeout", "0.5", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let found = Dictionary(uniqueKeysWithValues: jsonLines(r.stdout).map { ($0["address"] as? String ?? "", $0) })
        #expect(found.count == 3)
        #expect(found[BlueZTestbed.v1]?["profile"] as? String == "perc-v1")
        #expect(found[BlueZTestbed.mtk]?["profile"] as? String == "mtk-serial")
        #expect(found[BlueZTestbed.nus]?["profile"] as? String == "nordic-uart")
        #expect(found[BlueZTestbed.v1]?["rssi"] as? Int == -55)
        #expect(found[BlueZTestbed.phone] == nil)
        // Strongest first.
        #expect(jsonLines(r.stdout).first?["address"] as? String == BlueZTestbed.v1)
    }

    @Test func scanTableIsReadable() async throws {
        let bed = try await BlueZTestbed()
        let r = try CLI.run(["scan", "--bus", bed.address, "--timeout", "0.5"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("ADDRESS"))
        #expect(r.stdout.contains("\(BlueZTestbed.mtk)  -70   mtk-serial   PERC-old"))
    }

    @Test func pairSucceedsAndExplainsFailures() async throws {
        let bed = try await BlueZTestbed()
        let ok = try CLI.run(["pair", "--direct", BlueZTestbed.v1, "--bus", bed.address, "--json"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let outcome = jsonLines(ok.stdout).first
        #expect(outcome?["ok"] as? Bool == true)
        #expect(outcome?["profile"] as? String == "perc-v1")

        let phone = try CLI.run(["pair", "--direct", BlueZTestbed.phone, "--bus", bed.address])
        #expect(phone.status == 1)
        #expect(phone.stderr.contains("is not a PERC"))

        let missing = try CLI.run(["pair", "--direct", "C0:FF:EE:00:00:55", "--bus", bed.address, "--timeout", "1", "--json"])
        #expect(missing.status == 1)
        #expect(jsonLines(missing.stdout).first?["error"] as? String == "not-found")

        try await bed.control.setPairMode(BlueZTestbed.mtk, "error:org.bluez.Error.AuthenticationRejected")
        let refused = try CLI.run(["pair", "--direct", BlueZTestbed.mtk, "--bus", bed.address])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("org.bluez.Error.AuthenticationRejected"))

        let bad = try CLI.run(["pair", "--direct", "not-an-address", "--bus", bed.address])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("AA:BB:CC:DD:EE:FF"))
    }

    @Test func monitorPrintsEventsGapsAndLatencyAcrossABluetoothdRestart() async throws {
        let bed = try await BlueZTestbed()
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["monitor", BlueZTestbed.v1, "--bus", bed.address, "--duration", "6", "--json"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        // Read stdout as it comes (the pipe must not fill up).
        let collected = OutputCollector(out.fileHandleForReading)

        let control = bed.control
        #expect(await eventually(5) { (try? await control.stats(BlueZTestbed.v1)["acquired"]?.bool) == true })
        // The link-up read comes right after subscribing: printed before the first send.
        #expect(await eventually(5) { jsonLines(collected.text).contains { $0["kind"] as? String == "light" } })
        try await control.sendV1(BlueZTestbed.v1, field: 1, light: 0)
        try await control.dropSequence(BlueZTestbed.v1, 2)
        try await control.sendV1(BlueZTestbed.v1, field: 1, light: 1)
        try await control.vanish(seconds: 0.5)
        #expect(await eventually(6) { (try? await control.stats(BlueZTestbed.v1)["acquired"]?.bool) == true })
        // The state read after the reconnect is printed before the next send (a notification
        // that overtakes the read's reply is a race of its own, not what this test is about).
        #expect(await eventually(5) { readings(collected.text).count >= 6 })
        try await control.sendV1(BlueZTestbed.v1, field: 0, light: 1)
        for _ in 0..<400 where p.isRunning { try await Task.sleep(for: .milliseconds(25)) }
        #expect(!p.isRunning)

        let lines = jsonLines(collected.text)
        let events = readings(collected.text)
        // The state read at link-up (field+light, no sequence), field, light, then after the
        // reconnect the state read again (the last value: field+light) and the new field.
        #expect(events.count == 7)
        #expect(events.allSatisfy { $0["profile"] as? String == "perc-v1" && $0["address"] as? String == BlueZTestbed.v1 })
        #expect(events.map { $0["seq"] as? Int } == [nil, nil, 0, 3, nil, nil, 4])
        #expect(events.map { $0["value"] as? Int } == [0, 0, 1, 1, 1, 1, 0])
        // Notifications have a latency; read values (maybe older than the read) do not.
        #expect(events.allSatisfy { e in
            e["seq"] is Int ? (e["latency_ms"] as? Double).map { $0 >= 0 && $0 < 1000 } == true : e["latency_ms"] == nil
        })
        #expect(events[3]["lost"] as? Int == 2)
        let statuses = lines.compactMap { $0["status"] as? String }
        #expect(statuses.contains { $0.contains("bluetoothd left the bus") })
        #expect(statuses.filter { $0.hasPrefix("connected") }.count == 2)
        #expect(lines.last?["kind"] as? String == "summary")
        #expect(lines.last?["lost"] as? Int == 2)
    }
}

/// Collects a pipe's output on a background thread.
final class OutputCollector: @unchecked Sendable {
    // @unchecked: `data` is only touched under `lock`.
    private let lock = NSLock()
    private var data = Data()

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                lock.lock(); data.append(chunk); lock.unlock()
            }
        }
    }

    var text: String {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}
