import Testing
import Foundation
import PercTestSupport

@Suite struct CLITests {
    @Test func helpTeachesTheSubcommands() throws {
        let r = try CLI.run(["--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("percbridge"))
    }

    @Test func unknownSubcommandFailsWithAMessage() throws {
        let r = try CLI.run(["no-such-command"])
        #expect(r.status != 0)
        #expect(!r.stderr.isEmpty)
    }
}

/// `--help` prose is one line per paragraph in the source's output, so the parser alone wraps it
/// to the terminal: at a very wide terminal no paragraph may still break (a hard wrap in the
/// source shows as ragged lines at every width but the one it was written for).
@Suite struct HelpWrappingTests {
    static let commands: [[String]] = [
        [], ["serve"], ["demo"], ["scan"], ["pair"], ["monitor"], ["list"], ["status"], ["define"],
        ["calibrate"], ["forget"], ["input", "inspect"], ["input", "list"], ["record"], ["replay"],
        ["diagnose"], ["config", "check"], ["bench", "service"], ["bench", "accuracy"],
    ]

    @Test(arguments: commands) func discussionParagraphsAreNotHardWrapped(_ command: [String]) throws {
        let r = try CLI.run(command + ["--help"], environment: ProcessInfo.processInfo.environment.merging(["COLUMNS": "3000"]) { $1 })
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.hasPrefix("USAGE:") }
        var previous: Substring = ""
        for line in lines {
            let prose = { (l: Substring) in l.first.map { $0 != " " && $0 != "-" } ?? false }
            #expect(!(prose(line) && prose(previous)), "\(command.joined(separator: " ")) --help breaks a paragraph: \"\(previous)\" / \"\(line)\"")
            previous = line
        }
    }
}
