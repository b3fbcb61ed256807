// Pairing PERCs against the BlueZ emulator: success, not a PERC, not found, refused, vanished, timeout.
import Foundation
import Testing
@testable import PercBlueZ
import PercTestSupport

@Suite(.serialized) struct PercPairingTests {
    func pairing(_ bed: BlueZTestbed, agent: BlueZAgent? = nil) -> PercPairing {
        PercPairing(mirror: bed.session.mirror, discovery: bed.session.discovery, agent: agent, logger: bed.session.logger)
    }

    func failure(_ bed: BlueZTestbed, _ address: String, timeout: Duration) async -> PercPairingError? {
        do {
            _ = try await pairing(bed).pair(address: address, timeout: timeout)
            return nil
        } catch {
            return error
        }
    }

    @Test func pairsTrustsConnectsAndFindsTheProfile() async throws {
        let bed = try await BlueZTestbed()
        let result = try await pairing(bed).pair(address: BlueZTestbed.mtk.lowercased(), timeout: .seconds(10))
        #expect(result.profile == .mtkSerial)
        #expect(result.name == "PERC-old")
        #expect(!result.alreadyPaired)
        let stats = try await bed.control.stats(BlueZTestbed.mtk)
        #expect(stats["paired"]?.bool == true)
        #expect(stats["trusted"]?.bool == true)
        #expect(stats["connected"]?.bool == true)
        // A second time: already paired is fine.
        let again = try await pairing(bed).pair(address: BlueZTestbed.mtk, timeout: .seconds(10))
        #expect(again.alreadyPaired)
    }

    @Test func ourNoInputNoOutputAgentAnswersBlueZ() async throws {
        let bed = try await BlueZTestbed()
        let agent = BlueZAgent(connection: bed.session.connection, logger: bed.session.logger)
        let result = try await pairing(bed, agent: agent).pair(address: BlueZTestbed.v1, timeout: .seconds(10))
        #expect(result.profile == .percV1)
        #expect(try await bed.control.stats(BlueZTestbed.v1)["agent_approvals"]?.int == 1)
        // Registering again (e.g. after a bluetoothd restart) is harmless.
        try await agent.register()
    }

    @Test func aDeviceWithoutPercServicesIsNotAPerc() async throws {
        let bed = try await BlueZTestbed()
        let error = await failure(bed, BlueZTestbed.phone, timeout: .seconds(10))
        guard case .notAPerc(_, let services)? = error else {
            Issue.record("expected notAPerc, got \(String(describing: error))")
            return
        }
        #expect(services == [PercGattLayout.batteryService])
    }

    @Test func anAddressNobodyAdvertisesIsNotFound() async throws {
        let bed = try await BlueZTestbed()
        let start = ContinuousClock.now
        let error = await failure(bed, "C0:FF:EE:00:00:77", timeout: .seconds(1))
        #expect(error?.code == "not-found")
        #expect(ContinuousClock.now - start < .seconds(4))
    }

    @Test func aRefusalCarriesBlueZsErrorName() async throws {
        let bed = try await BlueZTestbed()
        try await bed.control.setPairMode(BlueZTestbed.v1, "error:org.bluez.Error.AuthenticationFailed")
        let error = await failure(bed, BlueZTestbed.v1, timeout: .seconds(10))
        guard case .refused(_, let name, _)? = error else {
            Issue.record("expected refused, got \(String(describing: error))")
            return
        }
        #expect(name == "org.bluez.Error.AuthenticationFailed")
    }

    @Test func aDeviceVanishingMidPairingFailsAtOnce() async throws {
        let bed = try await BlueZTestbed()
        try await bed.control.setPairMode(BlueZTestbed.v1, "vanish")
        let start = ContinuousClock.now
        let error = await failure(bed, BlueZTestbed.v1, timeout: .seconds(20))
        #expect(error == .vanished(address: BlueZTestbed.v1))
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func aPairingThatNeverAnswersTimesOut() async throws {
        let bed = try await BlueZTestbed()
        try await bed.control.setPairMode(BlueZTestbed.v1, "hang")
        let start = ContinuousClock.now
        let error = await failure(bed, BlueZTestbed.v1, timeout: .seconds(1.5))
        #expect(error?.code == "timeout")
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func badAddressesAreRejectedBeforeAnyCall() async throws {
        let bed = try await BlueZTestbed()
        let error = await failure(bed, "C0:FF:EE", timeout: .seconds(1))
        #expect(error == .invalidAddress("C0:FF:EE"))
    }
}
