// Locates test fixtures beside this file (copied recordings keep their MIT LICENSE here).
import Foundation

enum Fixture {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }
    static func evemu(_ name: String) -> String { path("evemu-devices/" + name) }
}
