// `bench service`: runs one phase — emulator, serve, touches, PERCs placed and notifying, apps — and measures it.
import Foundation
import MTKTangibles
import NIOCore
import NIOPosix
import PercSystem
import PercEmulator
import PercRuntime

/// Everything one phase starts is ended before `run` returns (serve by pid, also on errors
/// through `BenchServeChild.deinit`; the emulator and its dbus-daemon by `stop()`).
struct BenchPhaseRunner {
    let phase: BenchPhase
    let binary: String
    let seconds: Double
    let rate: Double
    let percRate: Double
    /// Each PERC's notification rate in the burst phases.
    var burstRate = 100.0
    var maxRate = 1000.0
    var maxBurst = 4
    let watcher: BenchTUIOWatcher
    var verbose = false

    static func address(_ k: Int) -> String { String(format: "C0:FF:EE:00:%02X:%02X", (k + 1) >> 8, (k + 1) & 0xFF) }

    func run() async throws -> BenchPhaseResult {
        var result = BenchPhaseResult(phase: phase)
        let addresses = (0..<phase.percs).map(Self.address)
        let emulator = try BlueZEmulatorProcess(percs: addresses.enumerated().map { ($1, "PERC-bench-\($0 + 1)", "perc-v1", -50) })
        defer { emulator.stop() }
        let connection = try DBusConnection(bus: .address(emulator.address))
        defer { connection.close() }
        let control = BlueZEmulatorControl(connection: connection)
        watcher.reset()
        let tuioIn = try await Self.freeUDPPort()
        // The evdev phase's script starts when serve opens the device: long enough for the
        // links, the placing and the window.
        let touchscreen = phase.evdev ? try BenchEvdevProbe.touchscreen(seconds: seconds + 60) : nil
        defer { touchscreen?.remove() }
        let serve = try BenchServeChild(.init(binary: binary, percs: addresses, bus: emulator.address, tuioIn: tuioIn,
                                              tuioOut: watcher.port, rateHz: rate, record: phase.records,
                                              clock: phase.clock, maxRateHz: maxRate, maxBurst: maxBurst, evdev: touchscreen))
        guard let http = await serve.httpPort(within: 30) else {
            throw BenchFailure("serve did not start within 30 s (\(phase.name)); its log:\n\(serve.log)")
        }
        result.linksUp = try await Self.waitForLinks(phase.percs, http: http, serve: serve, during: phase.name)

        let touches = phase.percs + phase.fingers > 0
            ? try await BenchTouchSender.start(port: tuioIn, fingers: phase.fingers, rateHz: rate) : nil
        if let touches {
            // Fingers first, older than the 200 ms time window, so they are no PERC's window traces.
            try await Task.sleep(for: .milliseconds(400))
            try await Self.place(addresses, touches: touches, control: control, watcher: watcher)
        }
        try await startStreams(addresses, control: control)
        var apps: BenchWSClients?
        if phase.clients > 0 {
            let readers = phase.clients - (phase.stalled ? 1 : 0)
            let a = try await BenchWSClients.connect(port: http, readers: readers, stalled: phase.stalled)
            apps = a
            let deadline = MonotonicClock.now() + 20
            while a.upgraded < readers, MonotonicClock.now() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        }
        // The load and evdev phases time a probe finger to TUIO and to one app decoding every
        // frame; the burst phases time the notifications to that app.
        let probeApp = phase.touchProbe || phase.evdev || phase.burst != nil
            ? try await BenchWSProbeApp.connect(port: http, decodePointers: phase.burst == nil) : nil
        let probe = phase.touchProbe ? try await BenchTouchProbe.start(port: tuioIn) : nil
        try await Task.sleep(for: .seconds(1))  // settle: every part running before the window opens
        result.placed = watcher.latest?.present.count ?? 0

        let before = await BenchHTTP.metrics(port: http)
        watcher.reset()
        apps?.startMeasuring()
        result.loadBefore = BenchProc.load1()
        let start = MonotonicClock.now()
        let cpu0 = (BenchProc.cpuSeconds(serve.pid) ?? 0, BenchProc.cpuSeconds(emulator.emulatorPID) ?? 0,
                    BenchProc.cpuSeconds(BenchProc.selfPID) ?? 0)
        var rss = [BenchProc.rssKiB(serve.pid) ?? 0]
        var transitions: [BenchLatency.Transition] = []
        let probing = probe.flatMap { p in probeApp.map { app in Task { try await p.run(until: start + seconds, watcher: watcher, app: app) } } }
        if phase.latency, let touches {
            let cycler = BenchLatencyCycler(addresses: addresses, control: control, touches: touches, watcher: watcher,
                                            period: 1 / rate, percRate: percRate)
            transitions = try await cycler.run(until: start + seconds) { rss.append(BenchProc.rssKiB(serve.pid) ?? 0) }
        } else {
            while MonotonicClock.now() < start + seconds {
                try await Task.sleep(for: .milliseconds(250))
                rss.append(BenchProc.rssKiB(serve.pid) ?? 0)
            }
        }
        if let probing { result.touch = try await probing.value }
        let end = MonotonicClock.now()
        result.seconds = end - start
        result.serveCPU = (BenchProc.cpuSeconds(serve.pid) ?? cpu0.0) - cpu0.0
        result.emulatorCPU = (BenchProc.cpuSeconds(emulator.emulatorPID) ?? cpu0.1) - cpu0.1
        result.benchCPU = (BenchProc.cpuSeconds(BenchProc.selfPID) ?? cpu0.2) - cpu0.2
        result.loadAfter = BenchProc.load1()
        result.tuio = watcher.counters
        result.clients = apps?.stopMeasuring()
        result.rssStartKiB = rss.first ?? 0
        result.rssEndKiB = rss.last ?? 0
        result.rssMaxKiB = rss.max() ?? 0
        result.takeMetrics(before: before, after: await BenchHTTP.metrics(port: http))
        result.touchDatagrams = touches?.datagramsSent ?? 0

        await apps?.close()
        await touches?.stop()
        await probe?.close()
        // The window's last moves and notifications reach the outputs and the app.
        if phase.evdev || phase.burst != nil { try await Task.sleep(for: .milliseconds(200)) }
        await probeApp?.close()
        result.exitStatus = await serve.terminate()
        if phase.evdev, let probeApp {  // the recording is complete once serve has exited
            result.touch = try evdevLatency(serve: serve, from: start, to: end, app: probeApp)
        }
        try analyseRecording(serve, transitions: transitions, from: start, to: end, app: probeApp, into: &result)
        serve.removeFiles()
        return result
    }

    /// The PERCs' notification streams: at `--perc-rate` all on one phase; in the burst phases
    /// at `--burst-rate`, all on one phase or started one after another.
    private func startStreams(_ addresses: [String], control: BlueZEmulatorControl) async throws {
        let rate = phase.burst == nil ? percRate : burstRate
        guard rate > 0, !addresses.isEmpty else { return }
        if phase.burst == .oneByOne {
            for address in addresses { try await control.startStream(address, rate: rate, count: 0) }
        } else {
            try await control.startStreamAll(rate: rate, count: 0)  // all on one phase: bursts
        }
    }

    /// The latency and burst phases' figures from serve's recording (complete once serve exited).
    private func analyseRecording(_ serve: BenchServeChild, transitions: [BenchLatency.Transition], from start: Seconds,
                                  to end: Seconds, app: BenchWSProbeApp?, into result: inout BenchPhaseResult) throws {
        if phase.latency {
            let recorded = try BenchLatency.recordedFieldEvents(path: serve.recordingPath)
            result.latency = BenchLatency.analyse(transitions, recorded: recorded, log: verbose ? { printError($0) } : nil)
        }
        if phase.burst != nil, let app {
            let recorded = try BenchLatency.recordedSensorEvents(path: serve.recordingPath, kinds: [.field, .light])
            result.burst = BenchBurst.analyse(recorded: recorded, from: start, to: end, app: app.frameReceipts)
        }
    }

    /// serve's read of each evdev move in the window (its recording) → the probe seen in TUIO and by the app.
    private func evdevLatency(serve: BenchServeChild, from: Seconds, to: Seconds, app: BenchWSProbeApp) throws -> BenchTouchLatency {
        var touch = BenchTouchLatency()
        let contacts = try BenchEvdevProbe.recordedContacts(path: serve.recordingPath, from: from, to: to)
        for (i, c) in contacts.enumerated() {
            let next = i + 1 < contacts.count && contacts[i + 1].frame == c.frame ? contacts[i + 1].position : nil
            touch.add(since: c.arrival, position: c.position, watcher: watcher, app: app, supersededBy: next)
        }
        if touch.moves == 0 {
            throw BenchFailure("the evdev phase recorded no touch from the umockdev touchscreen; serve's log:\n\(serve.log)")
        }
        return touch
    }

    /// Waits until serve reports `count` PERC links up; returns how many were.
    static func waitForLinks(_ count: Int, http: Int, serve: BenchServeChild, during what: String) async throws -> Int {
        let deadline = MonotonicClock.now() + 30
        var up = 0
        repeat {
            up = Int(await BenchHTTP.metrics(port: http)["percbridge_links_connected"] ?? 0)
            if up >= count { return up }
            try await Task.sleep(for: .milliseconds(100))
        } while MonotonicClock.now() < deadline && serve.isRunning
        throw BenchFailure("only \(up) of \(count) PERC links came up within 30 s (\(what)); serve's log:\n\(serve.log)")
    }

    /// Puts each PERC on the surface in turn: markers down, then field on a few frames later
    /// (the engine takes a single new triple in the time window as a guess), then a pause
    /// longer than the 200 ms window so the next PERC's window is its own.
    static func place(_ addresses: [String], touches: BenchTouchSender, control: BlueZEmulatorControl,
                      watcher: BenchTUIOWatcher) async throws {
        for (k, address) in addresses.enumerated() {
            touches.place(perc: k)
            try await Task.sleep(for: .milliseconds(40))
            try await control.sendV1(address, field: 1, light: 0)
            try await Task.sleep(for: .milliseconds(250))
        }
        let deadline = MonotonicClock.now() + 3
        while (watcher.latest?.present.count ?? 0) < addresses.count, MonotonicClock.now() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// A UDP port free right now (bound and released), for serve's TUIO input.
    static func freeUDPPort() async throws -> Int {
        let ch = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = ch.localAddress?.port ?? 0
        try await ch.close()
        return port
    }
}
