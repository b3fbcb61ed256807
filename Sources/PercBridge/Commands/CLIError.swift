// A command's runtime failure: one line `percbridge: error: …` on stderr and a sysexits(3) code.
import ArgumentParser
import Foundation

/// What went wrong while a command ran (not how it was called: that stays ArgumentParser's
/// `ValidationError`, printed with the usage, exit 64). The message says what to do.
struct CLIError: Error, CustomStringConvertible {
    /// sysexits(3): the codes scripts and systemd know.
    enum Code: Int32, Sendable {
        case failure = 1        // the command ran and the answer is "no" (e.g. the service refused)
        case dataError = 65     // EX_DATAERR: a file was read but its content is wrong
        case noInput = 66       // EX_NOINPUT: a file or device named on the command line cannot be read
        case unavailable = 69   // EX_UNAVAILABLE: a service it needs (bus, BlueZ, percbridge) is not there
        case software = 70      // EX_SOFTWARE: a bug of ours
        case cannotCreate = 73  // EX_CANTCREAT: an output file cannot be written
        case config = 78        // EX_CONFIG: the configuration (config file, registry) is unusable
    }

    var code: Code
    var message: String
    var description: String { message }

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A file named by the user could not be loaded: 66 when it is not there or not readable,
    /// else 65 (it was read; its content is wrong).
    static func reading(_ path: String, _ message: String) -> CLIError {
        FileManager.default.isReadableFile(atPath: path) ? CLIError(.dataError, message) : CLIError(.noInput, message)
    }

    /// Prints `percbridge: error: …` (each further line of the message indented) and exits.
    func exit() -> Never {
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        var text = "percbridge: error: \(lines.first ?? "")\n"
        for line in lines.dropFirst() { text += "  \(line)\n" }
        FileHandle.standardError.write(Data(text.utf8))
        Foundation.exit(code.rawValue)
    }
}
