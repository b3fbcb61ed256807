// Runs the built `percbridge` binary as a user would (shared by the end-to-end tests).
import Foundation

/// Runs the built `percbridge` binary as a user would.
public enum CLI {
    public static var binary: URL {
        // Tests run from the package's build folder: the executable sits beside the test bundle.
        var dir = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("percbridge")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/percbridge")
    }

    /// Exit status and output: the same record as `Helper.run` gives.
    public typealias Result = Helper.Output

    public static func run(_ args: [String], environment: [String: String]? = nil) throws -> Result {
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        if let environment { p.environment = environment }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                      stderr: String(decoding: e, as: UTF8.self))
    }
}

