// The shared --bus option: system by default, session, or an address; bad values are refused.
import Testing
@testable import PercBridge
import PercSystem
import PercTestSupport

@Suite struct BusOptionsTests {
    @Test func defaultsToTheSystemBus() throws {
        let options = try BusOptions.parse([])
        #expect(options.bus == .system)
        #expect(options.address.hasPrefix("unix:"))
    }

    @Test func acceptsSessionAndAddresses() throws {
        #expect(try BusOptions.parse(["--bus", "session"]).bus == .session)
        let options = try BusOptions.parse(["--bus", "unix:path=/tmp/x/bus.socket"])
        #expect(options.bus == .address("unix:path=/tmp/x/bus.socket"))
        #expect(options.address == "unix:path=/tmp/x/bus.socket")
    }

    @Test func refusesSomethingThatIsNoBus() {
        #expect(throws: (any Error).self) { _ = try BusOptions.parse(["--bus", "sytem"]) }
        #expect(throws: DBusError.self) { _ = try DBusBus(parsing: "sytem") }
    }

    @Test func helpTeachesTheChoices() {
        let help = BusOptions.helpMessage()
        #expect(help.contains("system|session|ADDRESS"))
        #expect(help.contains("unix:path="))
    }

    @Test func connectingThroughTheOptionReachesAPrivateBus() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try BusOptions.parse(["--bus", bus.address]).connect()
        #expect(connection.uniqueName.hasPrefix(":"))
    }
}
