// Hostile strings on the control API (real `percbridge demo` on a private bus): names are
// bounded, addresses validated, and errors echo at most 80 characters of what was sent.
import Foundation
import Testing
import PercTestSupport

@Suite(.serialized) struct ControlBoundsTests {
    @Test func longOrControlCharacterStringsAreRefusedAndNotEchoedWhole() async throws {
        let demo = try await ControlDemo(scenario: "single-placement")
        defer { demo.stop() }
        let huge = String(repeating: "A", count: 100_000)
        let address = await demo.error(of: "Pair", [.string(huge), .string("x")])
        #expect(address?.name == "org.percbridge.Error.InvalidArgument")
        #expect((address?.message.count ?? .max) < 300, "the error echoes at most 80 characters")
        #expect(address?.message.contains("(100000 characters)") == true, "\(address?.message.prefix(300) ?? "")")
        let name = await demo.error(of: "Pair", [.string("C0:FF:EE:00:00:99"), .string(huge)])
        #expect(name?.name == "org.percbridge.Error.InvalidArgument")
        #expect(name?.message.contains("at most 64") == true)
        #expect((name?.message.count ?? .max) < 300)
        let control = await demo.error(of: "Pair", [.string("C0:FF:EE:00:00:99"), .string("red\u{1B}[2J")])
        #expect(control?.message.contains("control characters") == true)
        #expect(control?.message.contains("\u{1B}") == false)
        let define = await demo.error(of: "Define", [.string(String(repeating: "n", count: 65)), .string("puc"), .string("")])
        #expect(define?.name == "org.percbridge.Error.InvalidArgument")
        #expect(define?.message.contains("1 to 64 printable characters") == true)
        for method in ["Forget", "Calibrate"] {
            let e = await demo.error(of: method, [.string(huge)])
            #expect(e?.name == "org.percbridge.Error.UnknownTangible")
            #expect((e?.message.count ?? .max) < 300, "\(method)")
        }
        let kind = await demo.error(of: "Define", [.string("Rock"), .string(huge), .string("")])
        #expect((kind?.message.count ?? .max) < 300)
        // A 64-character printable name is fine as far as the bound goes (the demo has no such PERC).
        let fits = await demo.error(of: "Pair", [.string("C0:FF:EE:00:00:99"), .string(String(repeating: "é", count: 64))])
        #expect(fits?.name == "org.percbridge.Error.PairingFailed")
    }
}
