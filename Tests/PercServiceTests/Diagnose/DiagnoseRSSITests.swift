// RSSI per tangible through serve, the BlueZ emulator and `percbridge diagnose` (live, --from, --json, --html, bad lines).
import Foundation
import MTKTangibles
import Testing
@testable import PercDiagnose
@testable import PercRuntime
import PercSystem
import PercBlueZ
import PercEmulator
import PercTestSupport

@Suite(.serialized) struct DiagnoseRSSITests {
    static let noneNote = "BlueZ reports RSSI only while discovering"

    func diagnose(_ args: [String]) async throws -> (CLI.Result, DiagnoseOutput?) {
        let r = try await offPool { try CLI.run(["diagnose"] + args + ["--json"]) }
        return (r, try? JSONDecoder().decode(DiagnoseOutput.self, from: Data(r.stdout.utf8)))
    }

    func red(_ out: DiagnoseOutput?) -> RSSIFigures? { out?.report.tangibles.first { $0.name == "red" }?.link.rssi }

    /// The emulator changes a connected PERC's RSSI: nothing while nobody discovers (as in
    /// bluetoothd), then -40, -70, -55 once another client discovers. The running service's
    /// diagnosis and its recording both report exactly those.
    @Test func rssiBlueZReportsIsShownLiveAndFromTheRecording() async throws {
        let tmp = try TempDir("pb-rssi")
        let emulator = try BlueZEmulatorProcess(percs: [(BlueZTestbed.v1, "PERC-one", "perc-v1", -60)])
        defer { emulator.stop() }
        var registry = TangibleRegistry()
        _ = try registry.add(.standardPerc(id: 0, name: "red", address: BlueZTestbed.v1))
        try RegistryStore(path: tmp.path("tangibles.json")).save(registry)
        let recording = tmp.path("run.jsonl")
        let serve = try ServeProcess(dir: tmp.url, .init(registry: tmp.path("tangibles.json"), bus: emulator.address),
                                     arguments: ["--record", recording])
        #expect(await serve.waitForLog("red (\(BlueZTestbed.v1)): link up"), "\(serve.log)")
        let http = "127.0.0.1:\(serve.httpPort)"
        let connection = try DBusConnection(bus: .address(emulator.address))
        defer { connection.close() }
        let control = BlueZEmulatorControl(connection: connection)

        // Connected, nobody discovering: BlueZ has no RSSI to give, and diagnose says why.
        #expect(try await control.setRSSI(BlueZTestbed.v1, -40) == false)
        let (_, before) = try await diagnose(["--http", http])
        #expect(red(before)?.count == 0 && red(before)?.note.contains(Self.noneNote) == true, "\(String(describing: red(before)))")

        try await control.startDiscoveryAsAnotherClient()  // announces the -40 set meanwhile
        #expect(try await control.setRSSI(BlueZTestbed.v1, -70))
        #expect(try await control.setRSSI(BlueZTestbed.v1, -55))
        var live: RSSIFigures?
        let seen = await eventually(10) {
            live = red(try? await diagnose(["--http", http]).1)
            return live?.count == 3
        }
        #expect(seen, "\(String(describing: live))\n\(serve.log.suffix(2000))")
        #expect(live?.lastDBm == -55 && live?.minDBm == -70 && live?.medianDBm == -55 && live?.maxDBm == -40, "\(String(describing: live))")
        #expect((live?.lastSeenBeforeEnd ?? 99) < 5 && live?.note.contains("from advertisements") == true)
        let table = try await offPool { try CLI.run(["diagnose", "--http", http]) }
        #expect(table.stdout.contains("RSSI last -55 dBm, min -70 / median -55 / max -40 dBm (n=3), last seen at "), "\(table.stdout)")
        let metrics = try await WSProbe.runAsync(["port": serve.httpPort, "path": "/metrics", "plain": true])
        #expect(metrics.contains("percbridge_diagnose_rssi_readings_total{tangible=\"1\"} 3.0")
                || metrics.contains("percbridge_diagnose_rssi_readings_total{tangible=\"1\"} 3"), "\(metrics.filter { $0.contains("rssi") })")
        #expect(try await serve.terminate() == 0, "\(serve.log)")

        // The recording holds the three readings with their tangible, address and time.
        let text = try String(contentsOfFile: recording, encoding: .utf8)
        let lines = text.split(separator: "\n").filter { $0.contains("\"kind\":\"rssi\"") }
        #expect(lines.count == 3 && lines.allSatisfy { $0.contains("\"address\":\"\(BlueZTestbed.v1)\"") && $0.contains("\"tangible\":1") }, "\(lines)")
        let (fromFile, out) = try await diagnose(["--from", recording])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let recorded = red(out)
        #expect(recorded?.count == 3 && recorded?.lastDBm == -55 && recorded?.minDBm == -70 && recorded?.medianDBm == -55
                && recorded?.maxDBm == -40, "\(String(describing: recorded))")
        #expect(out?.report.notes.contains { $0.contains("recorded in the header") } == true, "\(out?.report.notes ?? [])")
        let html = tmp.path("report.html")
        let page = try await offPool { try CLI.run(["diagnose", "--from", recording, "--html", html]) }
        #expect(page.status == 0)
        #expect(try String(contentsOfFile: html, encoding: .utf8).contains("RSSI last -55 dBm, min -70 / median -55 / max -40 dBm (n=3)"))

        // Garbage RSSI lines are skipped and counted; a valid one added by hand still counts.
        let garbage = [
            #"{"kind":"rssi","rssi":{"tangible":1,"address":"X","dBm":"loud","arrival":1}}"#,
            #"{"kind":"rssi","rssi":{"tangible":1,"address":"X","dBm":500,"arrival":1}}"#,
            #"{"kind":"rssi","rssi":{"tangible":1,"address":"X","dBm":0,"arrival":1}}"#,
            #"{"kind":"rssi","rssi":{"tangible":"red","dBm":-50,"arrival":1}}"#,
            #"{"kind":"rssi","rssi":{"tangible":1,"dBm":-50}}"#,
            #"{"kind":"rssi","rssi":{"tangible":1,"address":"\#(BlueZTestbed.v1)","dBm":-90,"arrival":1}}"#,
        ]
        let dirty = tmp.path("dirty.jsonl")
        try (text + garbage.joined(separator: "\n") + "\n").write(toFile: dirty, atomically: true, encoding: .utf8)
        let (bad, badOut) = try await diagnose(["--from", dirty])
        #expect(bad.status == 0 && bad.stderr.contains("5 unreadable lines skipped"), "\(bad.stderr)")
        #expect(badOut?.report.badLines == 5)
        let withHand = red(badOut)
        #expect(withHand?.count == 4 && withHand?.minDBm == -90 && withHand?.maxDBm == -40 && withHand?.medianDBm == -62.5
                && withHand?.lastDBm == -55, "the latest reading stays the last: \(String(describing: withHand))")

        // An older recording: no settings in the header, no RSSI lines. It still reads, and says so.
        var old = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init).filter { !$0.contains("\"kind\":\"rssi\"") }
        var header = try #require(try JSONSerialization.jsonObject(with: Data(old[0].utf8)) as? [String: Any])
        header["engine"] = nil
        header["lightChecks"] = nil
        old[0] = String(decoding: try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]), as: UTF8.self)
        let oldPath = tmp.path("old.jsonl")
        try (old.joined(separator: "\n") + "\n").write(toFile: oldPath, atomically: true, encoding: .utf8)
        let (o, oldOut) = try await diagnose(["--from", oldPath])
        #expect(o.status == 0 && oldOut?.report.badLines == 0, "\(o.stderr)")
        #expect(red(oldOut)?.count == 0 && red(oldOut)?.note.contains(Self.noneNote) == true)
        let notes = oldOut?.report.notes ?? []
        #expect(notes.contains { $0.contains("the defaults: the header has none") } && notes.contains { $0.contains("holds no RSSI readings") }, "\(notes)")
        let oldTable = try await offPool { try CLI.run(["diagnose", "--from", oldPath]) }
        #expect(oldTable.stdout.contains("RSSI: no RSSI reported: BlueZ reports RSSI only while discovering"), "\(oldTable.stdout)")
        #expect(oldTable.stdout.contains("note: engine and light-check settings: the defaults"), "\(oldTable.stdout)")
        let replay = try await offPool { try CLI.run(["replay", oldPath]) }
        #expect(replay.stdout.contains("settings:        the defaults: the header has none"), "\(replay.stdout)")
    }

    /// A registered PERC BlueZ does not know yet: the service discovers, and the device
    /// BlueZ then finds carries the RSSI of its advertisement (InterfacesAdded).
    @Test func aPercTheServiceScansForBringsTheRSSIItWasFoundWith() async throws {
        let tmp = try TempDir("pb-rssi-scan")
        let blue = "C0:FF:EE:00:00:05"
        let emulator = try BlueZEmulatorProcess(percs: [])
        defer { emulator.stop() }
        var registry = TangibleRegistry()
        _ = try registry.add(.standardPerc(id: 0, name: "red", address: blue))
        try RegistryStore(path: tmp.path("tangibles.json")).save(registry)
        let recording = tmp.path("run.jsonl")
        let serve = try ServeProcess(dir: tmp.url, .init(registry: tmp.path("tangibles.json"), bus: emulator.address),
                                     arguments: ["--record", recording])
        #expect(await serve.waitForLog("red (\(blue)): not known to BlueZ: scanning"), "\(serve.log)")
        let connection = try DBusConnection(bus: .address(emulator.address))
        defer { connection.close() }
        try await BlueZEmulatorControl(connection: connection).addPerc(blue, name: "PERC-blue", profile: "perc-v1", rssi: -67)
        #expect(await serve.waitForLog("red (\(blue)): link up"), "\(serve.log)")
        var live: RSSIFigures?
        let seen = await eventually(10) {
            live = red(try? await diagnose(["--http", "127.0.0.1:\(serve.httpPort)"]).1)
            // At least the advertisement's: the emulator may announce the same RSSI again
            // while the service discovers (seen once in a full run: 2 samples of -67).
            return (live?.count ?? 0) >= 1
        }
        #expect(seen && live?.lastDBm == -67 && live?.minDBm == -67 && live?.maxDBm == -67, "\(String(describing: live))")
        #expect(try await serve.terminate() == 0)
        let (_, out) = try await diagnose(["--from", recording])
        #expect((red(out)?.count ?? 0) >= 1 && red(out)?.lastDBm == -67 && red(out)?.maxDBm == -67, "\(String(describing: red(out)))")
    }
}
