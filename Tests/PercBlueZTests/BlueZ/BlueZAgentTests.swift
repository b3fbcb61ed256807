// The pairing agent's answers (NoInputNoOutput).
import Testing
@testable import PercBlueZ

@Suite struct BlueZAgentTests {
    @Test func justWorksQuestionsAreConfirmed() {
        for member in ["RequestConfirmation", "RequestAuthorization", "AuthorizeService", "Release", "Cancel"] {
            #expect((try? BlueZAgent.answer(member: member, arguments: []).get()) == [], "\(member)")
        }
    }

    @Test func pinAndPasskeyRequestsAreRejected() {
        for member in ["RequestPinCode", "RequestPasskey"] {
            guard case .failure(let error) = BlueZAgent.answer(member: member, arguments: [.objectPath("/org/bluez/hci0/dev_X")]) else {
                Issue.record("\(member) was answered")
                continue
            }
            #expect(error.name == "org.bluez.Error.Rejected")
        }
    }

    @Test func unknownMethodsAreErrors() {
        guard case .failure(let error) = BlueZAgent.answer(member: "Frobnicate", arguments: []) else {
            Issue.record("answered")
            return
        }
        #expect(error.name == "org.freedesktop.DBus.Error.UnknownMethod")
    }
}
