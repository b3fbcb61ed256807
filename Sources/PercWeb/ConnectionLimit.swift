// Bounds the HTTP/WebSocket connections the service holds at once (`http.max_connections`).
import HummingbirdCore
import Logging

/// Hummingbird stops accepting while `maxConnections` are open (new ones wait in the kernel's
/// listen backlog until one closes), so no flood of connections can use up the process's file
/// descriptors or memory. Reaching the bound is counted and logged (rate-limited): the
/// process running out of descriptors used to leave new apps hanging with nothing in the log.
struct ConnectionLimit: AvailableConnectionsDelegate {
    let maxConnections: Int
    let onFull: @Sendable (Int) -> Void
    private(set) var open = 0

    init(_ maxConnections: Int, onFull: @escaping @Sendable (Int) -> Void) {
        self.maxConnections = maxConnections; self.onFull = onFull
    }

    mutating func connectionOpened() {
        open += 1
        if open == maxConnections { onFull(maxConnections) }
    }

    mutating func connectionClosed() { open -= 1 }

    func isAcceptingNewConnections() -> Bool { open < maxConnections }
}
