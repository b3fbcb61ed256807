// `demo --display screen`: the simulated light sensors read the real screen through `percbridge-overlay pixels`.
import Foundation
import Logging
import MTKTangibles
import Synchronization

/// Reads what the table's screen shows at surface points, through a `percbridge-overlay pixels`
/// child process (the service binary links no X library): one line of "X Y" in surface mm
/// out, one line of `RRGGBB` back. A pixel brighter than mid-grey is white. When the child
/// fails or dies, every later read is the background (black) and it is said once in the log.
public final class ScreenSampler: Sendable {
    private struct Pipes: @unchecked Sendable {
        let process: Process
        let input: FileHandle
        let output: FileHandle
        var buffer = Data()
    }
    private let pipes: Mutex<Pipes?>
    private let logger: Logger
    public let command: String

    /// Starts `overlay pixels --surface-mm WxH` plus `placement` (the overlay's screen mapping flags).
    public init(overlay: String, surfaceMM: Vec2, placement: [String], logger: Logger) throws {
        // A child that exits must not take this process with it on the next write.
        signal(SIGPIPE, SIG_IGN)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: overlay)
        p.arguments = ["pixels", "--surface-mm", "\(surfaceMM.x)x\(surfaceMM.y)"] + placement
        let stdin = Pipe(), stdout = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        try p.run()
        command = ([overlay] + (p.arguments ?? [])).joined(separator: " ")
        pipes = Mutex(Pipes(process: p, input: stdin.fileHandleForWriting, output: stdout.fileHandleForReading))
        self.logger = logger
    }

    /// Checks the child answers (it exits at once when there is no display); nil when it does.
    public func check() -> String? {
        if colourLine(of: Vec2(0, 0)) != nil { return nil }
        let status = pipes.withLock { $0?.process.isRunning == false ? $0?.process.terminationStatus : nil }
        return "\(command) gave no pixels" + (status.map { " (exit status \($0))" } ?? "")
    }

    /// The colour under `point` (surface mm).
    public func colour(at point: Vec2) -> LightColour {
        guard let hex = colourLine(of: point), hex.count == 6, let v = UInt32(hex, radix: 16) else { return .black }
        let r = Double(v >> 16 & 0xFF), g = Double(v >> 8 & 0xFF), b = Double(v & 0xFF)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b >= 128 ? .white : .black
    }

    private func colourLine(of point: Vec2) -> String? {
        pipes.withLock { p -> String? in
            guard var pipes = p else { return nil }
            var failed = false
            defer { p = failed ? nil : pipes }
            do {
                try pipes.input.write(contentsOf: Data("\(point.x) \(point.y)\n".utf8))
                while true {
                    if let nl = pipes.buffer.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: pipes.buffer[pipes.buffer.startIndex..<nl], as: UTF8.self)
                        pipes.buffer.removeSubrange(pipes.buffer.startIndex...nl)
                        return line.hasPrefix("error") ? nil : line
                    }
                    // availableData returns as soon as some bytes are there (read(upToCount:) waits for all of them).
                    let chunk = pipes.output.availableData
                    guard !chunk.isEmpty else { throw CocoaError(.fileReadUnknown) }
                    pipes.buffer.append(chunk)
                }
            } catch {
                logger.error("the screen cannot be read any more (\(command) ended): the light sensors see black from now on")
                failed = true
                return nil
            }
        }
    }

    public func stop() {
        pipes.withLock { p in
            guard let pipes = p else { return }
            try? pipes.input.close()
            if pipes.process.isRunning { pipes.process.terminate() }
            p = nil
        }
    }

    deinit { stop() }
}
