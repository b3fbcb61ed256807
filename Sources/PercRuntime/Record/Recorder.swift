// Writes a recording as versioned JSON Lines; thread-safe, buffered, used by `record` and `serve --record`.
import Dispatch
import Foundation
import MTKTangibles
import Synchronization
import PercSystem
import PercInput

/// Appends entries to a recording file. Call the `record` functions in the same order the
/// frame clock sees the inputs (FrameClock does this under its own lock), so replay cuts
/// identical frames. `record` only queues the entry: a writer on its own serial queue encodes
/// the queued entries in order (JSON, and the result digests) and writes them, so neither an
/// input nor the frame loop waits for JSON or the disk. At most `maxBacklog` entries wait;
/// past that, `record` waits for the writer (a disk that cannot keep up slows the caller
/// rather than losing entries a replay needs) and `stalls` counts it.
public final class Recorder: Sendable {
    public let path: String
    private let state: Mutex<State>
    private let writer = DispatchQueue(label: "percbridge-recorder")
    private let maxBacklog: Int

    fileprivate enum Item: Sendable {
        case entry(RecordEntry)
        /// A frame's result, digested by the writer (FrameDigest encodes the whole step).
        case result(ReplayStep)
    }

    fileprivate struct State {
        var handle: FileHandle?
        fileprivate var queue: [Item] = []
        var writing = false
        var entries = 0
        var stalls = 0
        var error: String?
    }

    public init(path: String, header: RecordingHeader, maxBacklog: Int = 65536) throws {
        self.path = path
        self.maxBacklog = maxBacklog
        guard FileManager.default.createFile(atPath: path, contents: nil), let h = FileHandle(forWritingAtPath: path) else {
            throw RecordingError("cannot create \(path): check that its folder exists and is writable")
        }
        do { try h.write(contentsOf: try RecordCoding.line(header)) } catch {
            throw RecordingError("cannot write \(path): \(error)")
        }
        state = Mutex(State(handle: h))
    }

    public func record(_ c: ContactUpdate) { append(.contact(c)) }
    public func record(_ e: SensorEvent) { append(.sensor(e)) }
    public func record(_ p: PresentedOverlay) { append(.presented(p)) }
    func recordFrame(_ f: Frame) { append(.frame(number: f.number, time: f.time, drawing: f.drawing)) }
    public func record(definitions: [TangibleDefinition]) { append(.definitions(definitions)) }
    public func record(result digest: String, frame: UInt64) { append(.result(frame: frame, digest: digest)) }
    /// A frame's result; its digest is computed on the writer's queue.
    public func record(result step: ReplayStep) { enqueue(.result(step)) }
    public func record(command c: SchedulerCommand) { append(.calibration(c)) }
    public func record(rssi r: RSSISample) { append(.rssi(r)) }

    public var entryCount: Int { state.withLock { $0.entries } }
    /// How often a caller waited because `maxBacklog` entries were not written yet.
    public var stalls: Int { state.withLock { $0.stalls } }
    /// The first write error, if any (recording stops writing after it).
    public var writeError: String? { state.withLock { $0.error } }

    public func append(_ entry: RecordEntry) { enqueue(.entry(entry)) }

    private func enqueue(_ item: Item) {
        var waited = false
        while true {
            let (queued, start) = state.withLock { s -> (Bool, Bool) in
                guard s.handle != nil else { return (true, false) }  // closed: nothing more is written
                guard s.queue.count < maxBacklog else { return (false, false) }
                s.queue.append(item)
                s.entries += 1
                if s.writing { return (true, false) }
                s.writing = true
                return (true, true)
            }
            if start { writer.async { self.drain() } }
            if queued { return }
            if !waited { waited = true; state.withLock { $0.stalls += 1 } }
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.001)
        }
    }

    /// On the writer's queue: encode and write whatever is queued, until nothing is.
    private func drain() {
        while true {
            let batch = state.withLock { s -> [Item] in
                if s.queue.isEmpty { s.writing = false }
                defer { s.queue.removeAll(keepingCapacity: true) }
                return s.queue
            }
            if batch.isEmpty { return }
            var data = Data()
            for item in batch {
                switch item {
                case .entry(let e): if let line = try? RecordCoding.line(e) { data.append(line) }
                case .result(let step):
                    if let line = try? RecordCoding.line(RecordEntry.result(frame: step.frame, digest: step.digest)) { data.append(line) }
                }
            }
            // The handle is closed only on this queue (or in deinit, when nothing else runs): write unlocked.
            guard let h = state.withLock({ $0.error == nil ? $0.handle : nil }) else { continue }
            do { try h.write(contentsOf: data) } catch { state.withLock { $0.error = "\(error)" } }
        }
    }

    /// Waits until everything recorded so far is written.
    public func flush() { writer.sync { drain() } }

    public func close() { writer.sync { closeNow() } }

    private func closeNow() {
        drain()
        state.withLock { s in
            try? s.handle?.close()
            s.handle = nil
        }
    }

    // No `writer.sync` here: the last reference may be dropped on the writer's own queue (a
    // finished drain block), and nothing else can run on this object any more.
    deinit { closeNow() }
}
