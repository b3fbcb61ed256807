// What one PERC's link does next, decided from what it saw: a value, no I/O (PercLink performs).
import PercSystem

/// The link's decisions, apart from the D-Bus calls and waits that carry them out
/// (`PercLink.run` is the executor). Each `handle(_:)` takes what the link saw or what BlueZ
/// answered and returns a `Step`: the status to report (nil when it is the one reported last)
/// and the one thing to do next. It keeps the back-off, the attempt count, the last status,
/// and whether the link was up when bluetoothd vanished.
///
///     look → waitForBluetoothd | waitForAdapter | search | waitForKernelLinks | connect | confirmConnected
///     connect → (answer) confirmConnected | awaitConnection | waitForPowered | pause | look
///     confirmConnected → awaitResolved | clearStaleLink | pause
///     awaitResolved → findLayout | disconnect | look | pause
///     findLayout → subscribe | pause     subscribe → stream | pause     stream → (lost) look
struct LinkMachine: Sendable, Equatable {
    struct Timing: Sendable, Equatable {
        var initialBackoff: Duration
        var maxBackoff: Duration
        /// See `PercLink.Configuration.connectionsReadGrace`.
        var connectionsReadGrace: Duration
    }

    /// What the mirror shows of this PERC when the link looks.
    struct World: Sendable, Equatable {
        var bluetoothdPresent: Bool
        var hasAdapter: Bool
        var device: Device?

        struct Device: Sendable, Equatable {
            var path: DBusObjectPath
            var connected: Bool
            var paired: Bool
            var adapter: DBusObjectPath?
            /// nil: the adapter is not in the tree.
            var adapterPowered: Bool?
            /// Switched off while the service watched (it stays off).
            var adapterSwitchedOff: Bool
            /// Seconds since the adapter appeared, nil when unknown.
            var adapterAge: Double?
        }
    }

    enum Event: Sendable, Equatable {
        /// Look at the world again (at start and after every step that says `look`).
        case looked(World)
        /// BlueZ's answer to Connect (`.notReady` without a call when the adapter was switched
        /// off), with the adapter's Powered as it is after the answer.
        case connectAnswered(ConnectAnswer, adapterPowered: Bool?, adapterSwitchedOff: Bool)
        /// A pending connection (BlueZ's own) came (true), could not (false), or not in time (nil).
        case pendingEnded(Bool?)
        /// Connected=true after Connect: came (true), could not (false), not in time (nil);
        /// `stillThere`: bluetoothd and the device object are still there.
        case connectedSeen(Bool?, stillThere: Bool)
        /// The Disconnect that clears BlueZ's stale link state was answered (true) or failed.
        case staleLinkCleared(Bool)
        /// ServicesResolved came (true), the link went (false), or not in time (nil);
        /// `connected`: the device still shows Connected=true.
        case resolved(Bool?, connected: Bool)
        /// The profile's characteristics were found (nil: not a PERC; `services` found instead).
        case layoutFound(Bool, services: [String])
        case subscribeFailed(String)
        case subscribed(profile: PercLinkStatus.PercProfileName, path: NotifyPath)
        /// The link went; `bluetoothdPresent` as it is then.
        case lost(reason: String, bluetoothdPresent: Bool)
    }

    enum Action: Sendable, Equatable {
        /// Observe the world and hand it back as `.looked`.
        case look
        case waitForBluetoothd
        case waitForAdapter
        /// Discover (for at most 10 s) until BlueZ knows the device.
        case search
        /// A paired PERC whose adapter just appeared, after bluetoothd vanished with its link
        /// up: let bluetoothd read the kernel's links first (for at most `remaining`).
        case waitForKernelLinks(DBusObjectPath, remaining: Duration)
        /// Connect, switching `adapter` on first when `powerOn`; an adapter switched off while
        /// the service watched answers `.notReady` without a call.
        case connect(DBusObjectPath, adapter: DBusObjectPath?, powerOn: Bool)
        /// BlueZ connects it already: wait for Connected=true, up to connectTimeout.
        case awaitConnection(DBusObjectPath, why: String)
        /// Disconnect, then look.
        case disconnectThenLook(DBusObjectPath, because: DisconnectReason)
        /// Wait until the adapter is powered (for ever when it was switched off, else up to maxBackoff).
        case waitForPowered(DBusObjectPath, forever: Bool)
        /// Wait this long, less when the world changes (a device's advertisement, a new snapshot).
        case pause(Duration, device: DBusObjectPath?)
        /// Wait briefly for Connected=true after Connect.
        case confirmConnected(DBusObjectPath)
        case clearStaleLink(DBusObjectPath)
        case awaitResolved(DBusObjectPath)
        case findLayout(DBusObjectPath)
        case subscribe
        /// Report the link up and stream notifications until it goes.
        case stream
    }

    enum DisconnectReason: Sendable, Equatable {
        /// BlueZ's pending connection (`why`) did not come within connectTimeout: clear it.
        case pendingConnectNeverCame(String)
        /// Connected, but the services did not resolve within resolveTimeout: a stale GATT client.
        case servicesNeverResolved
    }

    struct Step: Sendable, Equatable {
        var report: PercLinkStatus?
        var action: Action
    }

    /// Where the link is: what it waits for, with the device it is about.
    enum Phase: Sendable, Equatable {
        /// Waiting for the world to be looked at (and while it waits for bluetoothd, an
        /// adapter, the device, or a pause to end).
        case looking
        case connecting(World.Device)
        case pending(World.Device, why: String)
        case confirming(World.Device)
        case clearingStaleLink(World.Device)
        case resolving(World.Device)
        case findingLayout(World.Device)
        case subscribing(World.Device)
        case streaming
    }

    let timing: Timing
    private(set) var phase = Phase.looking
    private(set) var backoff: LinkBackoff
    private(set) var attempt = 0
    private(set) var lastStatus: PercLinkStatus?
    /// Set when the link was up as bluetoothd vanished (see `connectionsReadGrace`).
    private(set) var upWhenBluetoothdLeft = false
    /// Events that the phase cannot get (a bug of the executor): each starts over with a look.
    private(set) var impossibleEvents = 0

    init(timing: Timing) {
        self.timing = timing
        backoff = LinkBackoff(initial: timing.initialBackoff, max: timing.maxBackoff)
    }

    /// A status the executor reported itself (a Connect that is slow to answer).
    mutating func reported(_ status: PercLinkStatus) { lastStatus = status }

    mutating func handle(_ event: Event) -> Step {
        switch (phase, event) {
        case (_, .looked(let w)):
            return looked(w)
        case (.connecting(let d), .connectAnswered(let answer, let powered, let switchedOff)):
            return connectAnswered(answer, d, adapterPowered: powered, switchedOff: switchedOff)
        case (.pending(let d, let why), .pendingEnded(let outcome)):
            switch outcome {
            case true?: return go(.confirming(d), nil, .confirmConnected(d.path))
            case nil: return go(.looking, nil, .disconnectThenLook(d.path, because: .pendingConnectNeverCame(why)))
            case false?: return go(.looking, nil, .look)
            }
        case (.confirming(let d), .connectedSeen(let up, let stillThere)):
            if up == true { return go(.resolving(d), nil, .awaitResolved(d.path)) }
            // bluetoothd 5.66 can lose track of a link: Connect succeeds while Connected stays
            // false for ever. A Disconnect clears that state.
            if up == nil, stillThere { return go(.clearingStaleLink(d), nil, .clearStaleLink(d.path)) }
            return linkDidNotComeUp(d)
        case (.clearingStaleLink(let d), .staleLinkCleared(let ok)):
            // bluetoothd answers after its 2 s disconnect timer: the state is clear then, so
            // connect again at once rather than back off on top.
            guard ok else { return linkDidNotComeUp(d) }
            return go(.looking, .retrying(after: "BlueZ answered Connect but the link did not come up; its stale link state is cleared", inSeconds: 0), .look)
        case (.resolving(let d), .resolved(let resolved, let connected)):
            return resolvedAnswer(resolved, d, connected: connected)
        case (.findingLayout(let d), .layoutFound(let found, let services)):
            return found ? go(.subscribing(d), nil, .subscribe) : go(.looking, .notAPerc(services: services), .pause(timing.maxBackoff, device: nil))
        case (.subscribing, .subscribeFailed(let why)):
            return retry("could not subscribe to notifications (\(why))", device: nil)
        case (.subscribing, .subscribed(let profile, let path)):
            attempt = 0
            backoff.reset()
            return go(.streaming, .connected(profile: profile, path: path), .stream)
        case (.streaming, .lost(let reason, let bluetoothdPresent)):
            // Up when bluetoothd vanished (a SIGKILL, a crash): the kernel may still hold the
            // link, which the next bluetoothd reads a moment after its devices appear. A
            // bluetoothd that stops cleanly drops its links first.
            upWhenBluetoothdLeft = !bluetoothdPresent
            return go(.looking, .lost(reason: reason), .look)
        case (.looking, _), (.connecting, _), (.pending, _), (.confirming, _), (.clearingStaleLink, _), (.resolving, _),
             (.findingLayout, _), (.subscribing, _), (.streaming, _):
            impossibleEvents += 1
            return go(.looking, nil, .look)
        }
    }

    private mutating func looked(_ w: World) -> Step {
        guard w.bluetoothdPresent else { return go(.looking, .waitingForBluetoothd, .waitForBluetoothd) }
        guard w.hasAdapter else { return go(.looking, .waitingForAdapter, .waitForAdapter) }
        guard let d = w.device else { return go(.looking, .searching, .search) }
        if upWhenBluetoothdLeft, let remaining = kernelLinksGrace(d) {
            return go(.looking, nil, .waitForKernelLinks(d.path, remaining: remaining))
        }
        upWhenBluetoothdLeft = false
        guard !d.connected else {
            // Someone (BlueZ's own auto-connect, a restarted bluetoothd) connected it.
            return go(.confirming(d), nil, .confirmConnected(d.path))
        }
        attempt += 1
        // An adapter found off (at start, plugged in off) is switched on; one that was
        // switched off while we watched stays off: Connect would answer NotReady.
        let powerOn = d.adapter != nil && d.adapterPowered == false && !d.adapterSwitchedOff
        return go(.connecting(d), .connecting(attempt: attempt), .connect(d.path, adapter: d.adapter, powerOn: powerOn))
    }

    /// How long to leave a paired, unconnected device alone after its adapter appeared; nil
    /// when it need not wait (connected, not paired, or the adapter is older than the grace).
    private func kernelLinksGrace(_ d: World.Device) -> Duration? {
        guard !d.connected, d.paired, d.adapter != nil, let age = d.adapterAge,
              age < timing.connectionsReadGrace.seconds else { return nil }
        return .seconds(timing.connectionsReadGrace.seconds - age)
    }

    private mutating func connectAnswered(_ answer: ConnectAnswer, _ d: World.Device, adapterPowered: Bool?, switchedOff: Bool) -> Step {
        switch answer {
        case .overtaken:
            return go(.looking, nil, .look)   // bluetoothd back, adapter off, device gone: look again
        case .connected, .alreadyConnected:
            return go(.confirming(d), nil, .confirmConnected(d.path))
        case .gone:
            // The object left the tree: look it up again once the mirror has seen it go (the
            // pause ends at that removal).
            return go(.looking, nil, .pause(backoff.next(), device: d.path))
        case .pending(let why):
            // bluetoothd is connecting it already: the link comes the moment the PERC advertises.
            return go(.pending(d, why: why), .awaitingConnection(why), .awaitConnection(d.path, why: why))
        case .notReady:
            // NotReady while the adapter looks powered (BlueZ still bringing it up): back off
            // rather than ask again at once.
            guard let adapter = d.adapter, adapterPowered == false else {
                return go(.looking, .waitingForAdapter, .pause(backoff.next(), device: nil))
            }
            return go(.looking, .waitingForAdapter, .waitForPowered(adapter, forever: switchedOff))
        case .failed(let why):
            return retry("connect failed (\(why))", device: d.path)
        }
    }

    private mutating func resolvedAnswer(_ resolved: Bool?, _ d: World.Device, connected: Bool) -> Step {
        if resolved == true { return go(.findingLayout(d), nil, .findLayout(d.path)) }
        if resolved == nil, connected {
            // Connected but the services never resolved (seen after bluetoothd restarts): a
            // stale GATT client. Drop the link so that the next connect starts clean.
            return go(.looking, nil, .disconnectThenLook(d.path, because: .servicesNeverResolved))
        }
        // The common case after bluetoothd was killed: the link outlived the old bluetoothd in
        // the kernel, the new one shows it Connected but puts no GATT client on a link it did
        // not make, and the kernel drops it 2 s after the old one died. The PERC advertises
        // again at once: connect now, not after a back-off (the first time only).
        if backoff.isFirst {
            _ = backoff.next()   // no wait this time; the next failure waits as usual
            return go(.looking, .retrying(after: "the link went before its services were resolved (as a link from before a bluetoothd restart does)", inSeconds: 0), .look)
        }
        return retry("the link went before its services were resolved", device: d.path)
    }

    private mutating func linkDidNotComeUp(_ d: World.Device) -> Step {
        retry("BlueZ answered Connect but the link did not come up", device: d.path)
    }

    /// Reports `why` with the wait, then waits it (the next wait doubles).
    private mutating func retry(_ why: String, device: DBusObjectPath?) -> Step {
        let status = PercLinkStatus.retrying(after: why, inSeconds: backoff.current.seconds)
        return go(.looking, status, .pause(backoff.next(), device: device))
    }

    private mutating func go(_ next: Phase, _ status: PercLinkStatus?, _ action: Action) -> Step {
        phase = next
        return Step(report: status.flatMap { say($0) }, action: action)
    }

    /// `status` unless it is the one reported last.
    private mutating func say(_ status: PercLinkStatus) -> PercLinkStatus? {
        defer { lastStatus = status }
        return status == lastStatus ? nil : status
    }
}
