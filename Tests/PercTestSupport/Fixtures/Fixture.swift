// Locates test fixtures beside this file (copied recordings keep their MIT LICENSE here).
import Foundation

public enum Fixture {
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    public static func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }
    public static func evemu(_ name: String) -> String { path("evemu-devices/" + name) }
}
