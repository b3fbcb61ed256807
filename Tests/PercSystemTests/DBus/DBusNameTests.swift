// Owning bus names and watching their owners change.
import Foundation
import Testing
@testable import PercSystem
import PercTestSupport

@Suite struct DBusNameTests {
    @Test func requestReleaseAndWatchAName() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let first = try DBusConnection(bus: .address(bus.address))
        let second = try DBusConnection(bus: .address(bus.address))
        let watcher = try DBusConnection(bus: .address(bus.address))
        let changes = try await watcher.nameOwnerChanges(of: "org.percbridge.Service")

        #expect(try await first.nameOwner(of: "org.percbridge.Service") == nil)
        #expect(try await first.requestName("org.percbridge.Service") == .primaryOwner)
        #expect(try await first.requestName("org.percbridge.Service") == .alreadyOwner)
        #expect(try await second.requestName("org.percbridge.Service") == .exists)
        #expect(try await second.nameOwner(of: "org.percbridge.Service") == first.uniqueName)
        #expect(try await first.releaseName("org.percbridge.Service") == .released)
        #expect(try await first.releaseName("org.percbridge.Service") == .nonExistent)

        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == DBusNameOwnerChange(name: "org.percbridge.Service", oldOwner: nil, newOwner: first.uniqueName))
        #expect(await iterator.next() == DBusNameOwnerChange(name: "org.percbridge.Service", oldOwner: first.uniqueName, newOwner: nil))
        await #expect(throws: DBusError.self) { _ = try await first.requestName("not a valid name") }
    }

    @Test func aConnectionClosingReleasesItsNames() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let owner = try DBusConnection(bus: .address(bus.address))
        let watcher = try DBusConnection(bus: .address(bus.address))
        #expect(try await owner.requestName("org.percbridge.Gone") == .primaryOwner)
        let changes = try await watcher.nameOwnerChanges(of: "org.percbridge.Gone")
        owner.close()
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next()?.newOwner == nil)
    }
}
