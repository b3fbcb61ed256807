// The one frame clock: inputs are added from any thread; each tick cuts a Frame and hands it over.
import MTKTangibles
import Synchronization

/// Collects contact updates, sensor events and presented overlays from every source, and
/// cuts them into Frames on the ticker's thread (thesis 3.2.1: every entry belongs to the
/// frame's timestamp and keeps its arrival time). Several updates of one contact between
/// two ticks stay in the frame in arrival order: its coalesced samples.
///
/// Consume frames as an `AsyncStream` (`frames`) or with the `onFrame` callback of `start`.
/// The service can also keep its own inbox and use only `FrameTicker`.
public final class FrameClock: Sendable {
    private let assembler = Mutex(FrameAssembler())
    public let ticker: FrameTicker
    public let frames: AsyncStream<Frame>
    private let continuation: AsyncStream<Frame>.Continuation
    /// Writes every input and tick in the order the assembler sees them (under its lock), so
    /// `percbridge replay` cuts identical frames.
    public let recorder: Recorder?

    public init(mode: TickSchedule.Mode = .fixedRate(hz: 120), recorder: Recorder? = nil, bufferedFrames: Int = 256) {
        ticker = FrameTicker(mode: mode)
        self.recorder = recorder
        (frames, continuation) = AsyncStream.makeStream(of: Frame.self, bufferingPolicy: .bufferingNewest(bufferedFrames))
    }

    /// One contact update; in event mode a frame is cut for it (use `add(contacts:)` for a
    /// whole input frame, so it is cut once).
    public func add(_ c: ContactUpdate) {
        assembler.withLock { $0.add(c); recorder?.record(c) }
        ticker.inputArrived()
    }
    /// A completed input frame (evdev SYN_REPORT, TUIO fseq, one JSON message): in event
    /// mode the clock cuts a frame at once (or at the `max_rate_hz` cap).
    public func add(contacts: [ContactUpdate]) {
        assembler.withLock { a in for c in contacts { a.add(c); recorder?.record(c) } }
        if !contacts.isEmpty { ticker.inputArrived() }
    }
    /// A sensor notification or link change: it can change a tangible's state, so in event
    /// mode it cuts a frame too.
    public func add(_ e: SensorEvent) {
        assembler.withLock { $0.add(e); recorder?.record(e) }
        ticker.inputArrived()
    }
    /// An app's presented report: kept in the frame, and in follow mode it cuts the frame.
    public func add(_ p: PresentedOverlay) {
        assembler.withLock { $0.add(p); recorder?.record(p) }
        ticker.presented(at: p.from)
    }

    /// Whether an app draws the overlay: frames cut from now on carry it (`Frame.drawing`),
    /// and in event mode the change cuts a frame (searching PERCs are guessed at once).
    /// Returns whether it changed.
    @discardableResult
    public func setDrawing(_ on: Bool) -> Bool {
        let changed = assembler.withLock { a in defer { a.drawing = on }; return a.drawing != on }
        if changed { ticker.inputArrived() }
        return changed
    }

    /// Cuts a frame now (also what each tick does). Exposed for tests and replay.
    public func cut(at time: Seconds) -> Frame {
        assembler.withLock { a in
            let f = a.cut(at: time)
            recorder?.recordFrame(f)
            return f
        }
    }

    /// Starts ticking. Each frame goes to `onFrame` (on the clock's thread) and to `frames`.
    public func start(onFrame: (@Sendable (Frame) -> Void)? = nil) {
        ticker.start { [self] time in
            let f = cut(at: time)
            onFrame?(f)
            continuation.yield(f)
        }
    }

    public func stop() {
        ticker.stop()
        continuation.finish()
        recorder?.flush()
    }
}
