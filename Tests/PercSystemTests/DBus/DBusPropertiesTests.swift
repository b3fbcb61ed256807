// Properties and ObjectManager clients against the python peer.
import Foundation
import Testing
@testable import PercSystem

@Suite struct DBusPropertiesTests {
    @Test func getGetAllAndSetWithPropertiesChanged() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        let c = peer.connection
        #expect(try await c.property("Name", interface: TestPeer.interface, path: TestPeer.path, destination: TestPeer.name) == .string("peer"))
        let all = try await c.allProperties(interface: TestPeer.interface, path: TestPeer.path, destination: TestPeer.name)
        #expect(all == ["Name": .string("peer"), "Level": .uint32(7)])

        let changes = try await c.propertiesChanges(sender: TestPeer.name, path: TestPeer.path, interface: TestPeer.interface)
        try await c.setProperty("Level", to: .uint32(9), interface: TestPeer.interface, path: TestPeer.path, destination: TestPeer.name)
        var iterator = changes.makeAsyncIterator()
        let change = await iterator.next()
        #expect(change?.changed == ["Level": .uint32(9)])
        #expect(change?.path == TestPeer.path)
        #expect(try await c.property("Level", interface: TestPeer.interface, path: TestPeer.path, destination: TestPeer.name) == .uint32(9))

        await #expect {
            try await c.setProperty("Name", to: .string("x"), interface: TestPeer.interface, path: TestPeer.path, destination: TestPeer.name)
        } throws: { ($0 as? DBusError)?.name == DBusError.Name.propertyReadOnly.rawValue }
    }

    @Test func objectManagerSnapshotAndEvents() async throws {
        let peer = try TestPeer()
        defer { peer.stop() }
        let c = peer.connection
        // Subscribe first, then snapshot: the order that cannot miss anything.
        let events = try await c.objectManagerEvents(sender: TestPeer.name)
        #expect(try await c.managedObjects(destination: TestPeer.name).isEmpty)
        _ = try await peer.call("AddObject", [.objectPath("/org/percbridge/Test/dev1")])
        let tree = try await c.managedObjects(destination: TestPeer.name)
        #expect(tree["/org/percbridge/Test/dev1"]?[TestPeer.interface]?["Name"] == .string("dev1"))
        _ = try await peer.call("RemoveObject", [.objectPath("/org/percbridge/Test/dev1")])

        var iterator = events.makeAsyncIterator()
        guard case .added(let path, let interfaces, _)? = await iterator.next() else { Issue.record("no InterfacesAdded"); return }
        #expect(path == "/org/percbridge/Test/dev1")
        #expect(interfaces[TestPeer.interface]?["Name"]?.string == "dev1")
        guard case .removed(let removedPath, let names, _)? = await iterator.next() else { Issue.record("no InterfacesRemoved"); return }
        #expect(removedPath == "/org/percbridge/Test/dev1")
        #expect(names == [TestPeer.interface])
    }
}
