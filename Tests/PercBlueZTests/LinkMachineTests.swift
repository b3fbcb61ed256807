// The link's decisions as a value: what it reports and does for each thing it sees or BlueZ answers.
import Testing
import PercSystem
@testable import PercBlueZ

@Suite struct LinkMachineTests {
    static let timing = LinkMachine.Timing(initialBackoff: .milliseconds(250), maxBackoff: .seconds(30),
                                           connectionsReadGrace: .milliseconds(500))
    static let adapter = DBusObjectPath("/org/bluez/hci0")
    static let path = DBusObjectPath("/org/bluez/hci0/dev_AA_BB_CC_DD_EE_01")

    static func device(connected: Bool = false, paired: Bool = true, powered: Bool? = true, switchedOff: Bool = false,
                       age: Double? = 60) -> LinkMachine.World.Device {
        .init(path: path, connected: connected, paired: paired, adapter: adapter, adapterPowered: powered,
              adapterSwitchedOff: switchedOff, adapterAge: age)
    }

    static func world(_ device: LinkMachine.World.Device? = device(), bluetoothd: Bool = true, adapter: Bool = true) -> LinkMachine.World {
        .init(bluetoothdPresent: bluetoothd, hasAdapter: adapter, device: device)
    }

    /// A machine that has connected and is streaming.
    static func streaming() -> LinkMachine {
        var m = LinkMachine(timing: timing)
        _ = m.handle(.looked(world()))
        _ = m.handle(.connectAnswered(.connected, adapterPowered: true, adapterSwitchedOff: false))
        _ = m.handle(.connectedSeen(true, stillThere: true))
        _ = m.handle(.resolved(true, connected: true))
        _ = m.handle(.layoutFound(true, services: []))
        _ = m.handle(.subscribed(profile: "perc-v1", path: .acquireNotify))
        return m
    }

    @Test func itWaitsForBluetoothdThenAnAdapterThenTheDeviceAndConnects() {
        var m = LinkMachine(timing: Self.timing)
        #expect(m.handle(.looked(Self.world(bluetoothd: false))) == .init(report: .waitingForBluetoothd, action: .waitForBluetoothd))
        // The same status again is not reported twice.
        #expect(m.handle(.looked(Self.world(bluetoothd: false))) == .init(report: nil, action: .waitForBluetoothd))
        #expect(m.handle(.looked(Self.world(adapter: false))) == .init(report: .waitingForAdapter, action: .waitForAdapter))
        #expect(m.handle(.looked(Self.world(nil))) == .init(report: .searching, action: .search))
        #expect(m.handle(.looked(Self.world())) == .init(report: .connecting(attempt: 1),
                                                         action: .connect(Self.path, adapter: Self.adapter, powerOn: false)))
        #expect(m.handle(.connectAnswered(.connected, adapterPowered: true, adapterSwitchedOff: false))
                == .init(report: nil, action: .confirmConnected(Self.path)))
        #expect(m.handle(.connectedSeen(true, stillThere: true)) == .init(report: nil, action: .awaitResolved(Self.path)))
        #expect(m.handle(.resolved(true, connected: true)) == .init(report: nil, action: .findLayout(Self.path)))
        #expect(m.handle(.layoutFound(true, services: [])) == .init(report: nil, action: .subscribe))
        #expect(m.handle(.subscribed(profile: "perc-v1", path: .acquireNotify))
                == .init(report: .connected(profile: "perc-v1", path: .acquireNotify), action: .stream))
        #expect(m.phase == .streaming && m.impossibleEvents == 0)
    }

    @Test func aDeviceAlreadyConnectedIsNotConnectedAgain() {
        var m = LinkMachine(timing: Self.timing)
        #expect(m.handle(.looked(Self.world(Self.device(connected: true)))) == .init(report: nil, action: .confirmConnected(Self.path)))
        #expect(m.attempt == 0)
    }

    @Test func failedConnectsBackOffDoublingAndALinkStartsOver() {
        var m = LinkMachine(timing: Self.timing)
        var waits: [Duration] = []
        for n in 1...3 {
            #expect(m.handle(.looked(Self.world())).report == .connecting(attempt: n))
            let step = m.handle(.connectAnswered(.failed("page timeout"), adapterPowered: true, adapterSwitchedOff: false))
            guard case .pause(let d, let device) = step.action else { Issue.record("\(step)"); return }
            #expect(device == Self.path)
            #expect(step.report == .retrying(after: "connect failed (page timeout)", inSeconds: d.seconds))
            waits.append(d)
        }
        #expect(waits == [.milliseconds(250), .milliseconds(500), .seconds(1)])
        _ = m.handle(.looked(Self.world()))
        _ = m.handle(.connectAnswered(.connected, adapterPowered: true, adapterSwitchedOff: false))
        _ = m.handle(.connectedSeen(true, stillThere: true))
        _ = m.handle(.resolved(true, connected: true))
        _ = m.handle(.layoutFound(true, services: []))
        _ = m.handle(.subscribed(profile: "mtk-serial", path: .startNotify))
        #expect(m.attempt == 0 && m.backoff.isFirst)
        // After the link goes, the count starts at 1 again.
        _ = m.handle(.lost(reason: "disconnected", bluetoothdPresent: true))
        #expect(m.handle(.looked(Self.world())).report == .connecting(attempt: 1))
    }

    @Test func anAdapterOffIsSwitchedOnUnlessSomeoneSwitchedItOff() {
        var m = LinkMachine(timing: Self.timing)
        #expect(m.handle(.looked(Self.world(Self.device(powered: false)))).action == .connect(Self.path, adapter: Self.adapter, powerOn: true))
        var n = LinkMachine(timing: Self.timing)
        #expect(n.handle(.looked(Self.world(Self.device(powered: false, switchedOff: true)))).action
                == .connect(Self.path, adapter: Self.adapter, powerOn: false))
        // NotReady with the adapter off: wait for Powered, for ever when it was switched off.
        #expect(n.handle(.connectAnswered(.notReady, adapterPowered: false, adapterSwitchedOff: true))
                == .init(report: .waitingForAdapter, action: .waitForPowered(Self.adapter, forever: true)))
        // NotReady while it looks powered (still coming up): back off instead.
        _ = n.handle(.looked(Self.world()))
        #expect(n.handle(.connectAnswered(.notReady, adapterPowered: true, adapterSwitchedOff: false))
                == .init(report: .waitingForAdapter, action: .pause(.milliseconds(250), device: nil)))
    }

    @Test func aPendingConnectionIsAwaitedAndClearedWhenItNeverComes() {
        var m = LinkMachine(timing: Self.timing)
        _ = m.handle(.looked(Self.world()))
        let why = "org.bluez.Error.InProgress"
        #expect(m.handle(.connectAnswered(.pending(why), adapterPowered: true, adapterSwitchedOff: false))
                == .init(report: .awaitingConnection(why), action: .awaitConnection(Self.path, why: why)))
        #expect(m.handle(.pendingEnded(nil)) == .init(report: nil, action: .disconnectThenLook(Self.path, because: .pendingConnectNeverCame(why))))
        _ = m.handle(.looked(Self.world()))
        _ = m.handle(.connectAnswered(.pending(why), adapterPowered: true, adapterSwitchedOff: false))
        #expect(m.handle(.pendingEnded(true)).action == .confirmConnected(Self.path))
    }

    @Test func aStaleLinkIsClearedAndConnectedAgainAtOnce() {
        var m = LinkMachine(timing: Self.timing)
        _ = m.handle(.looked(Self.world()))
        _ = m.handle(.connectAnswered(.connected, adapterPowered: true, adapterSwitchedOff: false))
        #expect(m.handle(.connectedSeen(nil, stillThere: true)).action == .clearStaleLink(Self.path))
        #expect(m.handle(.staleLinkCleared(true)) == .init(
            report: .retrying(after: "BlueZ answered Connect but the link did not come up; its stale link state is cleared", inSeconds: 0),
            action: .look))
        // The Disconnect failed, or the device went: back off.
        _ = m.handle(.looked(Self.world()))
        _ = m.handle(.connectAnswered(.connected, adapterPowered: true, adapterSwitchedOff: false))
        #expect(m.handle(.connectedSeen(false, stillThere: false)) == .init(
            report: .retrying(after: "BlueZ answered Connect but the link did not come up", inSeconds: 0.25),
            action: .pause(.milliseconds(250), device: Self.path)))
    }

    @Test func servicesThatNeverResolveDropTheLinkAndALinkThatWentIsRetriedOnceAtOnce() {
        var m = LinkMachine(timing: Self.timing)
        _ = m.handle(.looked(Self.world(Self.device(connected: true))))
        _ = m.handle(.connectedSeen(true, stillThere: true))
        #expect(m.handle(.resolved(nil, connected: true)).action == .disconnectThenLook(Self.path, because: .servicesNeverResolved))
        // A link from before a bluetoothd restart goes before its services resolve: at once the
        // first time, with the back-off after that.
        _ = m.handle(.looked(Self.world(Self.device(connected: true))))
        _ = m.handle(.connectedSeen(true, stillThere: true))
        #expect(m.handle(.resolved(false, connected: false)).action == .look)
        _ = m.handle(.looked(Self.world(Self.device(connected: true))))
        _ = m.handle(.connectedSeen(true, stillThere: true))
        #expect(m.handle(.resolved(false, connected: false)).action == .pause(.milliseconds(500), device: Self.path))
    }

    @Test func notAPercWaitsTheLongestBackOff() {
        var m = LinkMachine(timing: Self.timing)
        _ = m.handle(.looked(Self.world(Self.device(connected: true))))
        _ = m.handle(.connectedSeen(true, stillThere: true))
        _ = m.handle(.resolved(true, connected: true))
        #expect(m.handle(.layoutFound(false, services: ["180f"])) == .init(report: .notAPerc(services: ["180f"]),
                                                                          action: .pause(.seconds(30), device: nil)))
    }

    @Test func afterBluetoothdVanishedWithTheLinkUpThePercIsLeftAloneWhileTheKernelsLinksAreRead() {
        var m = Self.streaming()
        #expect(m.handle(.lost(reason: "bluetoothd left the bus", bluetoothdPresent: false))
                == .init(report: .lost(reason: "bluetoothd left the bus"), action: .look))
        #expect(m.upWhenBluetoothdLeft)
        // Its adapter appeared 0.1 s ago: wait the rest of the 0.5 s for Connected=true.
        #expect(m.handle(.looked(Self.world(Self.device(age: 0.1)))).action == .waitForKernelLinks(Self.path, remaining: .seconds(0.4)))
        // Then connect as usual.
        #expect(m.handle(.looked(Self.world(Self.device(age: 0.6)))).action == .connect(Self.path, adapter: Self.adapter, powerOn: false))
        #expect(!m.upWhenBluetoothdLeft)
    }

    @Test func aBluetoothdThatStoppedCleanlyOrAnUnpairedPercIsConnectedAtOnce() {
        var clean = Self.streaming()
        _ = clean.handle(.lost(reason: "disconnected", bluetoothdPresent: true))
        #expect(clean.handle(.looked(Self.world(Self.device(age: 0.1)))).action == .connect(Self.path, adapter: Self.adapter, powerOn: false))
        var unpaired = Self.streaming()
        _ = unpaired.handle(.lost(reason: "bluetoothd left the bus", bluetoothdPresent: false))
        #expect(unpaired.handle(.looked(Self.world(Self.device(paired: false, age: 0.1)))).action
                == .connect(Self.path, adapter: Self.adapter, powerOn: false))
    }

    @Test func anEventItsPhaseCannotGetStartsOverAndIsCounted() {
        var m = LinkMachine(timing: Self.timing)
        #expect(m.handle(.resolved(true, connected: true)) == .init(report: nil, action: .look))
        #expect(m.impossibleEvents == 1 && m.phase == .looking)
        _ = m.handle(.looked(Self.world()))
        #expect(m.handle(.lost(reason: "x", bluetoothdPresent: true)).action == .look)
        #expect(m.impossibleEvents == 2)
    }

    @Test func aSlowConnectReportedByTheExecutorIsNotReportedAgain() {
        var m = LinkMachine(timing: Self.timing)
        let slow = PercLinkStatus.awaitingConnection("nothing yet, 5 s after Connect")
        _ = m.handle(.looked(Self.world()))
        m.reported(slow)
        #expect(m.handle(.connectAnswered(.pending("nothing yet, 5 s after Connect"), adapterPowered: true, adapterSwitchedOff: false)).report == nil)
    }
}
