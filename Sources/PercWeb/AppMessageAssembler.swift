// Joins WebSocket frames into app messages, enforcing the size limit without closing the socket.
import Foundation
import HummingbirdWebSocket
import NIOCore

/// The library's own message reader closes the connection on an oversized message; the
/// app protocol instead answers `error` and goes on, so frames are assembled here.
struct AppMessageAssembler {
    enum Result { case none, message(Data), error(AppProtocolError) }

    let limit: Int
    private var buffer: [UInt8] = []
    private var inMessage = false
    private var discarding = false
    private var binary = false

    init(limit: Int) { self.limit = limit }

    mutating func add(_ frame: WebSocketDataFrame) -> Result {
        switch frame.opcode {
        case .text, .binary:
            buffer.removeAll(keepingCapacity: true)
            inMessage = true
            discarding = false
            binary = frame.opcode == .binary
        case .continuation:
            guard inMessage else { return .error(.init(code: .malformed, message: "continuation frame without a message")) }
        }
        var result = Result.none
        if !discarding {
            if buffer.count + frame.data.readableBytes > limit {
                discarding = true
                buffer.removeAll()
                result = .error(.init(code: .oversized, message: "message is over the limit of \(limit) bytes"))
            } else {
                buffer.append(contentsOf: frame.data.readableBytesView)
            }
        }
        guard frame.fin else { return result }
        inMessage = false
        if discarding { return result }
        if binary { return .error(.init(code: .malformed, message: "binary messages are not part of the protocol; send JSON text")) }
        return .message(Data(buffer))
    }
}
