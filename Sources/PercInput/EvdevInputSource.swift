// A live touchscreen: reads the evdev node on its own thread, decodes MT protocol B, resyncs after SYN_DROPPED.
import Foundation
import Logging
import MTKTangibles
import Synchronization
import PercSystem

/// Reads one /dev/input/eventN. Event times are the kernel's (CLOCK_MONOTONIC after
/// EVIOCSCLOCKID; if the device refuses, wall-clock times are shifted onto the monotonic
/// timeline). Ends when the device goes away, or after `idleTimeout` seconds without events.
public final class EvdevInputSource: InputSource {
    public let path: String
    public let surfaceSize: Vec2?
    public let grab: Bool
    public let idleTimeout: Double?
    private let logger: Logger
    private let log = Mutex(BadInputLog())
    private let info = Mutex<(DeviceDescription?, Bool)>((nil, false))

    public init(path: String, surfaceSize: Vec2? = nil, grab: Bool = false, idleTimeout: Double? = nil,
                logger: Logger = Logger(label: "percbridge.input.evdev")) {
        self.path = path; self.surfaceSize = surfaceSize; self.grab = grab; self.idleTimeout = idleTimeout; self.logger = logger
    }

    public var name: String { "evdev:\(path)" }
    public var badInput: BadInputLog { log.withLock { $0 } }
    /// The device as described by its ioctls, and whether its clock is monotonic (after `run` opened it).
    public var device: (description: DeviceDescription?, monotonic: Bool) { info.withLock { $0 } }

    public func run(sink: @escaping @Sendable ([ContactUpdate]) -> Void) async throws {
        let dev = try EvdevDevice(path: path)
        let description = dev.describe()
        let monotonic = dev.useMonotonicClock()
        info.withLock { $0 = (description, monotonic) }
        if !monotonic { logger.info("\(path): EVIOCSCLOCKID refused; mapping wall-clock event times onto CLOCK_MONOTONIC") }
        if grab && !dev.grab(true) { logger.warning("\(path): exclusive grab refused (another program holds it)") }
        let initial = MTDecoder(device: description, origin: InputOrigin(kind: .evdev, device: description.name),
                                surfaceSize: surfaceSize, sourceName: path, canResync: true, bad: BadInputLog(logger: logger))
        guard initial.isSupported else {
            log.withLock { $0.merge(initial.bad) }
            dev.close()
            throw EvdevDevice.Failure(description: "\(path): \(initial.bad.sorted.first?.firstDetail ?? "unsupported device")")
        }
        // Blocking reads belong on their own thread, not on the cooperative pool.
        let done = Mutex<CheckedContinuation<Void, any Error>?>(nil)
        let stop = Atomic<Bool>(false)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (cont: CheckedContinuation<Void, any Error>) in
                done.withLock { $0 = cont }
                let thread = Thread { [self] in
                    ThreadName.setCurrent("pb-evdev")
                    ReceiveThreadPriority.promoteCurrentThread(as: .touchInput)
                    var decoder = initial // owned by this thread only
                    var lastEvent = MonotonicClock.now()
                    var wallTimes = WallClockEventTimes()
                    var result: (any Error)?
                    loop: while !stop.load(ordering: .acquiring) {
                        switch dev.read(timeout: 0.1) {
                        case .timeout:
                            if let idle = idleTimeout, MonotonicClock.now() - lastEvent > idle { break loop }
                        case .closed(let why):
                            result = EvdevDevice.Failure(description: "\(path): \(why)")
                            break loop
                        case .events(let events):
                            let arrival = MonotonicClock.now()
                            lastEvent = arrival
                            let shift = monotonic ? 0 : MonotonicClock.realtimeOffset()
                            var out: [ContactUpdate] = []
                            for var e in events {
                                e.time = monotonic ? e.time : wallTimes.map(wall: e.time, shift: shift, arrival: arrival)
                                decoder.feed(e, arrival: arrival, into: &out)
                                if decoder.state == .needsResync, let snap = dev.snapshot(slots: description.slotCount) {
                                    decoder.resync(with: snap, time: e.time, arrival: arrival, into: &out)
                                }
                            }
                            if let line = wallTimes.notice(at: arrival) { logger.warning("\(path): \(line)") }
                            if !out.isEmpty { sink(out) }
                        }
                    }
                    // Contacts still down end here: the device is gone or no longer read.
                    let now = MonotonicClock.now()
                    var ended: [ContactUpdate] = []
                    decoder.endAll(time: now, arrival: now, into: &ended)
                    if !ended.isEmpty { sink(ended) }
                    if grab { _ = dev.grab(false) }
                    dev.close()
                    log.withLock { $0.merge(decoder.bad) }
                    let c = done.withLock { c -> CheckedContinuation<Void, any Error>? in defer { c = nil }; return c }
                    if let result { c?.resume(throwing: result) } else { c?.resume() }
                }
                thread.start()
            }
        } onCancel: {
            stop.store(true, ordering: .releasing)
        }
    }
}
