// Where every input (touch sources, PERC links, apps) drops its events between frames.
import MTKTangibles
import Synchronization

/// A lock around the pure `FrameAssembler`: producers on any thread add, the frame clock
/// cuts. Adding is O(1) and never waits on the pipeline's step.
final class InputInbox: Sendable {
    private let assembler = Mutex(FrameAssembler())

    func add(_ c: ContactUpdate) { assembler.withLock { $0.add(c) } }
    func add(_ e: SensorEvent) { assembler.withLock { $0.add(e) } }
    func add(_ p: PresentedOverlay) { assembler.withLock { $0.add(p) } }
    func add(contacts: [ContactUpdate]) { assembler.withLock { a in for c in contacts { a.add(c) } } }
    func add(events: [SensorEvent]) { assembler.withLock { a in for e in events { a.add(e) } } }

    var pendingCount: Int { assembler.withLock { $0.pendingCount } }

    /// Ends the current frame at `time`.
    func cut(at time: Seconds) -> Frame { assembler.withLock { $0.cut(at: time) } }
}
