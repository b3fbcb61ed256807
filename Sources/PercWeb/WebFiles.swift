// The web clients the service serves (clients/js, embedded at build time by WebEmbedPlugin).
import Foundation
import NIOCore

/// `percbridge.js` and the viewer's `viewer.js`, decoded once from the generated
/// `EmbeddedWebFiles`: the installed binary needs no file beside it.
enum WebFiles {
    /// File name → bytes.
    static let files: [String: ByteBuffer] = EmbeddedWebFiles.base64.compactMapValues { text in
        Data(base64Encoded: text).map { ByteBuffer(bytes: $0) }
    }

    static func named(_ name: String) -> ByteBuffer? { files[name] }
}
