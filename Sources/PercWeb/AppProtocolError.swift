// An `error` message of the app protocol: a code apps can switch on and a readable message.

/// Why an app message was refused. Sent as `{"type": "error", "code": ..., "message": ...}`.
public struct AppProtocolError: Error, Hashable, Sendable {
    public enum Code: String, Hashable, Sendable {
        case malformed, oversized, invalid, unknownType = "unknown-type"
        case unsupportedVersion = "unsupported-version", unknownTangible = "unknown-tangible"
        case unavailable
    }
    public var code: Code
    public var message: String
    public var inReplyTo: String?

    public init(code: Code, message: String, inReplyTo: String? = nil) {
        self.code = code; self.message = message; self.inReplyTo = inReplyTo
    }

    var wire: AppWire.ErrorMessage {
        AppWire.ErrorMessage(code: code.rawValue, message: message, in_reply_to: inReplyTo)
    }
}
