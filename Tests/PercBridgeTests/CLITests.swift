import Testing
import Foundation

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
