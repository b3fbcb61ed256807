// Writing user-facing messages to stderr (stdout stays for results).
import Foundation

public func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
