// Every D-Bus type sent to a real peer (python dbus-python echo) and read back unchanged.
import Foundation
import Testing
@testable import PercSystem

@Suite(.serialized) struct DBusValueRoundTripTests {
    static let samples: [DBusValue] = [
        .byte(0xfe), .boolean(true), .boolean(false), .int16(-12345), .uint16(54321), .int32(-7), .uint32(4_000_000_000),
        .int64(-9_000_000_000_000), .uint64(18_000_000_000_000_000_000), .double(-0.125), .double(1e300),
        .string(""), .string("Grüße, PERC ✓"), .objectPath("/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF"), .objectPath(.root),
        .signature("a{oa{sa{sv}}}"), .signature(""),
        .bytes([0, 1, 2, 255]), .bytes([]),
        .array(element: "i", [.int32(1), .int32(-2), .int32(3)]), .stringArray([]), .stringArray(["a", "b"]),
        .objectPathArray(["/a", "/b/c"]),
        .stringVariantDictionary(["Name": .string("perc"), "RSSI": .int16(-60), "UUIDs": .stringArray(["ffe0"]),
                                  "ManufacturerData": .dictionary(key: "q", value: "v", pairs: [(.uint16(0x59), .variant(.bytes([1, 2])))])]),
        .dictionary(key: "s", value: "v", []),
        .dictionary(key: "i", value: "a{st}", pairs: [(.int32(1), .dictionary(key: "s", value: "t", pairs: [(.string("x"), .uint64(2))]))]),
        .structure([.int32(1), .structure([.string("s"), .variant(.boolean(true))]), .array(element: "d", [.double(2.5)])]),
        .array(element: "(ss)", [.structure([.string("a"), .string("b")]), .structure([.string("c"), .string("d")])]),
        .variant(.string("inside")), .variant(.variant(.uint32(9))), .variant(.bytes([7])),
        .variant(.structure([.objectPath("/x"), .int64(1)])),
    ]

    @Test func everyTypeSurvivesARoundTripThroughAPeer() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        for value in Self.samples {
            let reply = try await peer.call("Echo", [value])
            #expect(reply.arguments == [value], "round trip of \(value.signature)")
            #expect(reply.signature == value.signature)
        }
    }

    @Test func manyArgumentsKeepTheirOrderAndSignature() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        let reply = try await peer.call("Echo", Self.samples)
        #expect(reply.arguments == Self.samples)
        #expect(reply.signature == DBusValue.signature(of: Self.samples))
    }

    @Test func fileDescriptorsTravelBothWaysAndAreOwned() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        // Received: the peer wrote into a pipe and sent us its read end.
        let fd = try #require(try await peer.call("OpenFd").value(as: "h").fileDescriptor)
        let raw = try #require(fd.rawValue)
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(raw, &buffer, 64)
        #expect(String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self) == "hello over fd")

        // Sent: we pass the read end of our pipe; the peer reads it.
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        _ = "sent by swift".withCString { write(ends[1], $0, 13) }
        close(ends[1])
        let ours = DBusFileDescriptor(owning: ends[0])
        let echoed = try await peer.call("ReadFd", [.unixFD(ours)]).value(as: "s")
        #expect(echoed.string == "sent by swift")
        // libdbus sent a duplicate: ours is still open and owned by us.
        #expect(fcntl(ends[0], F_GETFD) >= 0)
        let taken = try #require(ours.take())
        #expect(ours.rawValue == nil)
        close(taken)
    }

    @Test func signaturesAreComputedAndValidated() {
        #expect(DBusValue.stringVariantDictionary([:]).signature == "a{sv}")
        #expect(DBusValue.signature(of: [.string("a"), .bytes([]), .structure([.int32(1), .variant(.byte(1))])]) == "say(iv)")
        #expect(DBusSignature(rawValue: "a{sv}") != nil)
        #expect(DBusSignature(rawValue: "a{vs}") == nil)  // keys must be basic
        #expect(DBusSignature(rawValue: "{sv}") == nil)   // dict entries only inside arrays
        #expect(DBusSignature(rawValue: "()") == nil)
        #expect(DBusSignature(rawValue: "a") == nil)
        #expect(DBusSignature(rawValue: "z") == nil)
        #expect(DBusSignature(rawValue: String(repeating: "a", count: 33) + "y") == nil)
        #expect(DBusSignature("sa{sv}as").completeTypes == ["s", "a{sv}", "as"])
        #expect(DBusObjectPath(rawValue: "/org/bluez/") == nil)
        #expect(DBusObjectPath(rawValue: "org") == nil)
        #expect(DBusObjectPath(rawValue: "/a//b") == nil)
        #expect(DBusObjectPath(rawValue: "/a-b") == nil)
        #expect(DBusObjectPath.root.appending("dev_AA:BB").rawValue == "/dev_AA_BB")
    }

    @Test func accessorsReadTheCommonShapes() {
        let props = DBusValue.stringVariantDictionary(["Value": .bytes([1, 2]), "MTU": .uint16(23), "Paired": .boolean(true)])
        let dict = props.stringVariantDictionary
        #expect(dict?["Value"]?.bytes == [1, 2])
        #expect(dict?["MTU"]?.int == 23)
        #expect(dict?["Paired"]?.bool == true)
        #expect(DBusValue.variant(.variant(.string("x"))).string == "x")
        #expect(DBusValue.uint64(.max).int64 == nil)
        #expect(DBusValue.string("x").bytes == nil)
        #expect(DBusValue.objectPathArray(["/a"]).stringArray == ["/a"])
    }
}
