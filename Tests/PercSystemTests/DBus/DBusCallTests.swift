// Method calls against a real peer: error replies, timeouts, unexpected replies, bad input.
import Foundation
import Testing
@testable import PercSystem

@Suite struct DBusCallTests {
    @Test func aPeerErrorArrivesWithItsNameAndMessage() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        await #expect {
            _ = try await peer.call("Fail", [.string("org.bluez.Error.InProgress"), .string("discovery already running")])
        } throws: { error in
            let e = error as? DBusError
            return e?.name == "org.bluez.Error.InProgress" && e?.message == "discovery already running"
                && e?.body == [.string("discovery already running")]
        }
    }

    @Test func aPeerThatNeverAnswersTimesOutWithoutHanging() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        let start = ContinuousClock.now
        await #expect {
            _ = try await peer.call("Never", timeout: .milliseconds(300))
        } throws: { ($0 as? DBusError)?.isTimeout == true }
        let elapsed = ContinuousClock.now - start
        // The upper bound only proves "no hang": a busy test run can delay the task pool by seconds.
        #expect(elapsed >= .milliseconds(290) && elapsed < .seconds(120))
        // The connection still works afterwards.
        #expect(try await peer.call("Echo", [.uint32(1)]).arguments == [.uint32(1)])
    }

    @Test func cancellingTheTaskEndsAWaitingCall() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        let task = Task { try await peer.call("Never", timeout: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    @Test func aReplyOfTheWrongTypeIsAnErrorNotACrash() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        let reply = try await peer.call("WrongType")
        #expect(throws: DBusError.self) { _ = try reply.value(as: "a{sv}") }
        #expect(reply.arguments.first?.stringVariantDictionary == nil)
        #expect(reply.arguments.first?.bytes == nil)
        do {
            _ = try reply.value(as: "u")
        } catch let error as DBusError {
            #expect(error.name == DBusError.Name.invalidSignature.rawValue)
            #expect(error.message.contains("expected signature 'u', got 's'"))
        }
    }

    @Test func malformedValuesAreRefusedBeforeSending() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        let mixed = DBusValue.array(element: "i", [.int32(1), .string("two")])
        let badKey = DBusValue.dictionary(key: "v", value: "s", [])
        let emptyStruct = DBusValue.structure([])
        let nul = DBusValue.string("a\0b")
        for bad in [mixed, badKey, emptyStruct, nul] {
            await #expect {
                _ = try await peer.call("Echo", [bad])
            } throws: { ($0 as? DBusError)?.name == DBusError.Name.invalidArgs.rawValue }
        }
        await #expect(throws: DBusError.self) {
            _ = try await peer.connection.call(destination: "not a name", path: .root, interface: nil, member: "X")
        }
        await #expect(throws: DBusError.self) {
            _ = try await peer.connection.call(destination: TestPeer.name, path: .root, interface: "bad..iface", member: "X")
        }
        await #expect(throws: DBusError.self) {
            _ = try await peer.connection.call(destination: TestPeer.name, path: .root, interface: nil, member: "no-dash")
        }
        #expect(try await peer.call("Echo", [.string("still fine")]).arguments == [.string("still fine")])
    }

    @Test func aCallToANameNobodyOwnsFailsWithServiceUnknown() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        await #expect {
            _ = try await peer.connection.call(destination: "org.percbridge.Nobody", path: .root, interface: nil, member: "Ping")
        } throws: { ($0 as? DBusError)?.name == DBusError.Name.serviceUnknown.rawValue }
    }

    @Test func noReplyCallsAreDelivered() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        let changes = try await peer.connection.propertiesChanges(sender: TestPeer.name, path: TestPeer.path)
        try peer.connection.callNoReply(destination: TestPeer.name, path: TestPeer.path, interface: DBusConnection.propertiesInterface,
                                        member: "Set", arguments: [.string(TestPeer.interface), .string("Level"), .variant(.uint32(42))])
        var iterator = changes.makeAsyncIterator()
        let change = await iterator.next()
        #expect(change?.changed["Level"] == .uint32(42))
    }

    @Test func theBusGoingAwayFailsWaitingCallsAndFinishesStreams() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        let stream = try await peer.connection.signals(matching: DBusMatchRule(interface: "org.percbridge.Nothing"))
        let waiting = Task { try await peer.call("Never", timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(100))
        peer.bus.stop()
        await #expect { _ = try await waiting.value } throws: { ($0 as? DBusError)?.isDisconnected == true }
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        await peer.connection.waitUntilClosed()
        #expect(!peer.connection.isConnected)
    }
}
