// Prints contact updates as lines (text or JSON Lines) for `input watch`, stopping after a limit.
import Foundation
import MTKTangibles
import Synchronization

/// Prints contact updates as text lines or JSON Lines (`input watch`), up to a limit.
public final class UpdatePrinter: Sendable {
    let json: Bool
    let max: Int?
    private let state = Mutex<(count: Int, onLimit: (@Sendable () -> Void)?)>((0, nil))

    public init(json: Bool, max: Int?) { self.json = json; self.max = max }

    public var count: Int { state.withLock { $0.count } }
    public var onLimit: (@Sendable () -> Void)? {
        get { state.withLock { $0.onLimit } }
        set { state.withLock { $0.onLimit = newValue } }
    }

    public func print(_ updates: [ContactUpdate]) {
        var out = ""
        var hitLimit: (@Sendable () -> Void)?
        state.withLock { s in
            for u in updates {
                if let max, s.count >= max { hitLimit = s.onLimit; break }
                s.count += 1
                if json {
                    let e = JSONEncoder(); e.outputFormatting = [.sortedKeys]
                    out += String(decoding: (try? e.encode(u)) ?? Data(), as: UTF8.self) + "\n"
                } else {
                    out += "\(u.phase.rawValue)\t#\(u.contactID)\t\(String(format: "%.2f", u.position.x))\t\(String(format: "%.2f", u.position.y))\tt=\(String(format: "%.6f", u.time))\n"
                }
            }
            if let max, s.count >= max { hitLimit = s.onLimit }
        }
        FileHandle.standardOutput.write(Data(out.utf8))
        hitLimit?()
    }
}
