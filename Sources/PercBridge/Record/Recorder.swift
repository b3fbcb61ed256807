// Writes a recording as versioned JSON Lines; thread-safe, buffered, used by `record` and `serve --record`.
import Foundation
import MTKTangibles
import Synchronization

/// Appends entries to a recording file. Call the `record` functions in the same order the
/// frame clock sees the inputs (FrameClock does this under its own lock), so replay cuts
/// identical frames. Lines are buffered and written every `flushEvery` entries and on `close`.
public final class Recorder: Sendable {
    public let path: String
    private let state: Mutex<State>
    private let flushEvery: Int

    struct State {
        var handle: FileHandle?
        var buffer = Data()
        var pending = 0
        var entries = 0
        var error: String?
    }

    public init(path: String, header: RecordingHeader, flushEvery: Int = 256) throws {
        self.path = path
        self.flushEvery = flushEvery
        guard FileManager.default.createFile(atPath: path, contents: nil), let h = FileHandle(forWritingAtPath: path) else {
            throw RecordingError("cannot create \(path): check that its folder exists and is writable")
        }
        var s = State(handle: h)
        s.buffer.append(try RecordCoding.line(header))
        state = Mutex(s)
    }

    public func record(_ c: ContactUpdate) { append(.contact(c)) }
    public func record(_ e: SensorEvent) { append(.sensor(e)) }
    public func record(_ p: PresentedOverlay) { append(.presented(p)) }
    public func recordFrame(_ f: Frame) { append(.frame(number: f.number, time: f.time)) }
    public func record(definitions: [TangibleDefinition]) { append(.definitions(definitions)) }
    public func record(result digest: String, frame: UInt64) { append(.result(frame: frame, digest: digest)) }
    public func record(calibration c: CalibrationCommand) { append(.calibration(c)) }
    public func record(rssi r: RSSISample) { append(.rssi(r)) }

    public var entryCount: Int { state.withLock { $0.entries } }
    /// The first write error, if any (recording stops writing after it).
    public var writeError: String? { state.withLock { $0.error } }

    public func append(_ entry: RecordEntry) {
        guard let line = try? RecordCoding.line(entry) else { return }
        state.withLock { s in
            s.buffer.append(line)
            s.entries += 1
            s.pending += 1
            if s.pending >= flushEvery { Self.flush(&s) }
        }
    }

    public func flush() { state.withLock { Self.flush(&$0) } }

    public func close() {
        state.withLock { s in
            Self.flush(&s)
            try? s.handle?.close()
            s.handle = nil
        }
    }

    private static func flush(_ s: inout State) {
        defer { s.buffer.removeAll(keepingCapacity: true); s.pending = 0 }
        guard let h = s.handle, !s.buffer.isEmpty, s.error == nil else { return }
        do { try h.write(contentsOf: s.buffer) } catch { s.error = "\(error)" }
    }

    deinit { close() }
}
