// An `error` message of the app protocol: a code apps can switch on and a readable message.

/// Why an app message was refused. Sent as `{"type": "error", "code": ..., "message": ...}`.
struct AppProtocolError: Error, Hashable, Sendable {
    enum Code: String, Hashable, Sendable {
        case malformed, oversized, invalid, unknownType = "unknown-type"
        case unsupportedVersion = "unsupported-version", unknownTangible = "unknown-tangible"
        case unavailable
    }
    var code: Code
    var message: String
    var inReplyTo: String?

    var wire: AppWire.ErrorMessage {
        AppWire.ErrorMessage(code: code.rawValue, message: message, in_reply_to: inReplyTo)
    }
}
