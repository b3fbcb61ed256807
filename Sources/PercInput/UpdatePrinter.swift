// Prints contact updates as lines (text or JSON Lines) for `input watch`, stopping after a limit.
import Foundation
import MTKTangibles
import Synchronization
import PercSystem

/// Prints contact updates as text lines or JSON Lines (`input watch`), up to a limit.
public final class UpdatePrinter: Sendable {
    let json: Bool
    let max: Int?
    private let printed = Mutex(0)
    /// Called once the limit is reached (`input watch --count` stops there).
    public let onLimit = CallbackSlot<Void>()

    public init(json: Bool, max: Int?) { self.json = json; self.max = max }

    public var count: Int { printed.withLock { $0 } }

    public func print(_ updates: [ContactUpdate]) {
        var out = ""
        let hitLimit = printed.withLock { count -> Bool in
            for u in updates {
                if let max, count >= max { return true }
                count += 1
                if json {
                    let e = JSONEncoder(); e.outputFormatting = [.sortedKeys]
                    out += String(decoding: (try? e.encode(u)) ?? Data(), as: UTF8.self) + "\n"
                } else {
                    out += "\(u.phase.rawValue)\t#\(u.contactID)\t\(String(format: "%.2f", u.position.x))\t\(String(format: "%.2f", u.position.y))\tt=\(String(format: "%.6f", u.time))\n"
                }
            }
            if let max, count >= max { return true }
            return false
        }
        FileHandle.standardOutput.write(Data(out.utf8))
        if hitLimit { onLimit() }
    }
}
