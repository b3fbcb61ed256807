// Test support for serve runs checked by replay: the control API's arrival, and `replay --json` with every frame compared.
import Foundation
import Testing
import PercSystem
import PercControl

extension ServeProcess {
    /// Waits until serve offers its control API on the bus at `address`.
    public func waitForControlAPI(on address: String) async throws {
        let client = try DBusConnection(bus: .address(address))
        defer { client.close() }
        let found = await eventually(30) { (try? await client.nameOwner(of: ControlAPI.busName)) != nil }
        try #require(found, "serve did not offer its control API: \(log)")
    }
}

/// `percbridge replay FILE --json` of a finished serve run: exit 0, more than `minFrames`
/// frames, each compared with the live digest and none different. Returns the report.
@discardableResult
public func replayMatchesEveryFrame(_ recording: String, minFrames: Int) async throws -> [String: Any] {
    let replay = try await offPool { try CLI.run(["replay", recording, "--json"]) }
    #expect(replay.status == 0, "\(replay.stdout)\(replay.stderr)")
    let report = try #require(try JSONSerialization.jsonObject(with: Data(replay.stdout.utf8)) as? [String: Any])
    let frames = report["frames"] as? Int ?? 0
    #expect(frames > minFrames && report["compared"] as? Int == frames, "every live frame's result was compared: \(report)")
    #expect((report["mismatches"] as? [Any])?.isEmpty == true, "\(report["mismatches"] ?? "")")
    return report
}
