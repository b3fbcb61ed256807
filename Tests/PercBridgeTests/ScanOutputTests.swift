// `scan`: one line per PERC, RSSI 127 ("not available" in HCI) shown as absent.
import Foundation
import Testing
@testable import PercBridge
import PercTestSupport

@Suite(.serialized) struct ScanOutputTests {
    @Test func onePerAddressKeepingTheBestOfEachAdapter() {
        typealias F = ScanCommand.Found
        let merged = ScanCommand.merged([
            F(address: "C0:FF:EE:00:00:01", name: "", rssi: -80, profile: nil, paired: false, connected: false),
            F(address: "C0:FF:EE:00:00:02", name: "PERC-b", rssi: nil, profile: "mtk-serial", paired: false, connected: false),
            F(address: "C0:FF:EE:00:00:01", name: "PERC-a", rssi: -50, profile: "perc-v1", paired: true, connected: false),
            F(address: "C0:FF:EE:00:00:01", name: "other", rssi: nil, profile: nil, paired: false, connected: true),
        ])
        #expect(merged == [
            F(address: "C0:FF:EE:00:00:01", name: "PERC-a", rssi: -50, profile: "perc-v1", paired: true, connected: true),
            F(address: "C0:FF:EE:00:00:02", name: "PERC-b", rssi: nil, profile: "mtk-serial", paired: false, connected: false),
        ])
    }

    @Test func rssi127IsNotAReading() async throws {
        let bed = try await BlueZTestbed()
        let unknown = "C0:FF:EE:00:00:7F"
        try await bed.control.addPerc(unknown, name: "PERC-btvirt", profile: "perc-v1", rssi: 127)
        let r = try CLI.run(["scan", "--bus", bed.address, "--timeout", "0.5", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let addresses = lines.compactMap { $0["address"] as? String }
        #expect(addresses.count == Set(addresses).count, "one line per device: \(r.stdout)")
        let line = lines.first { $0["address"] as? String == unknown }
        #expect(line != nil)
        #expect(line?["rssi"] == nil, "RSSI 127 must be absent: \(r.stdout)")
        #expect(line?["profile"] as? String == "perc-v1")
        // Sorted after every PERC with a reading; the table shows "-".
        #expect(addresses.last == unknown)
        let table = try CLI.run(["scan", "--bus", bed.address, "--timeout", "0.5"])
        #expect(table.stdout.contains("\(unknown)  -     perc-v1      PERC-btvirt"), "\(table.stdout)")
        #expect(!table.stdout.contains("127"))
    }
}
