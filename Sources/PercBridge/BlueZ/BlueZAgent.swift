// PercBridge's org.bluez.Agent1 (NoInputNoOutput): answers BlueZ's questions while pairing PERCs.

/// The pairing agent. PERCs have no keypad or display, so it registers as
/// NoInputNoOutput ("just works"): it confirms and authorizes, and refuses anything that
/// would need a PIN or passkey typed in (a PERC never asks for one; something else does).
enum BlueZAgent {
    static let path: DBusObjectPath = "/org/percbridge/agent"
    static let capability = "NoInputNoOutput"

    /// What the agent answers to each Agent1 method (pure: tested directly).
    static func answer(member: String, arguments: [DBusValue]) -> Result<[DBusValue], DBusError> {
        switch member {
        case "Release", "Cancel", "DisplayPinCode", "DisplayPasskey":
            return .success([])
        case "RequestConfirmation", "RequestAuthorization", "AuthorizeService":
            // Just works: a PERC cannot show or compare a passkey.
            return .success([])
        case "RequestPinCode", "RequestPasskey":
            return .failure(DBusError(name: BlueZ.ErrorName.rejected,
                                      message: "PercBridge pairs PERCs without PIN or passkey (NoInputNoOutput)"))
        default:
            return .failure(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod",
                                      message: "org.bluez.Agent1 has no method \(member)"))
        }
    }
}
