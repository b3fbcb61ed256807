// `device = "auto"`: every touchscreen udev knows now, plus those plugged in later (sd-device monitor).
import Logging
import MTKTangibles
import Synchronization
import PercSystem

/// Runs one `EvdevInputSource` per touchscreen (ID_INPUT_TOUCHSCREEN=1) and starts new ones
/// as they are plugged in. A device that goes away ends its reader; it is started again if
/// it comes back.
public final class AutoTouchscreenSource: InputSource {
    public let surfaceSize: Vec2?
    public let grab: Bool
    private let logger: Logger
    private let running = Mutex<[String: EvdevInputSource]>([:])

    public init(surfaceSize: Vec2?, grab: Bool = false, logger: Logger = Logger(label: "percbridge.input.auto")) {
        self.surfaceSize = surfaceSize; self.grab = grab; self.logger = logger
    }

    public var name: String { "evdev:auto" }
    public var badInput: BadInputLog {
        var all = BadInputLog()
        for s in running.withLock({ Array($0.values) }) { all.merge(s.badInput) }
        return all
    }
    /// The nodes being read now.
    public var devices: [String] { running.withLock { $0.keys.sorted() } }

    public func run(sink: @escaping @Sendable ([ContactUpdate]) -> Void) async throws {
        let (added, addedContinuation) = AsyncStream.makeStream(of: String.self)
        let monitor: TouchscreenMonitor?
        do {
            monitor = try TouchscreenMonitor { isAdd, info in if isAdd { addedContinuation.yield(info.devnode) } }
            monitor?.start()
        } catch {
            logger.warning("touchscreen hotplug is not followed: \(error)")
            monitor = nil
        }
        defer { monitor?.stop(); addedContinuation.finish() }
        for t in try SDDevice.touchscreens() { addedContinuation.yield(t.devnode) }
        // Discarding: a reader that ended (its device was unplugged) leaves nothing behind.
        await withDiscardingTaskGroup { group in
            for await node in added {
                let source = EvdevInputSource(path: node, surfaceSize: surfaceSize, grab: grab, logger: logger)
                let isNew = running.withLock { r -> Bool in
                    guard r[node] == nil else { return false }
                    r[node] = source
                    return true
                }
                guard isNew else { continue }
                logger.info("reading touchscreen \(node)")
                group.addTask { [self] in
                    do { try await source.run(sink: sink) } catch { logger.info("\(node): \(error)") }
                    _ = running.withLock { $0.removeValue(forKey: node) }
                }
            }
            group.cancelAll()
        }
    }
}
