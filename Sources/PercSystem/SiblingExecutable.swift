// Finds a program installed beside the running one (percbridge and percbridge-bench ship together).
import Foundation

/// The path of the running executable and of programs beside it.
public enum SiblingExecutable {
    /// The running executable, symlinks resolved (`/proc/self/exe`, else `argv[0]`).
    public static var current: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// `name` in the running executable's folder; nil when no executable file is there.
    public static func path(_ name: String) -> String? {
        let path = URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(name).path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
}
