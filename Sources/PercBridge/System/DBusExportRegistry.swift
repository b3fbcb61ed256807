// The objects a connection exports, and the routing of incoming method calls to them.
import CDBus

/// Routes incoming method calls (on the loop thread) to exported objects.
final class DBusExportRegistry: Sendable {
    func handle(_ call: DBusMessageRef, on loop: DBusEventLoop) {
        guard !call.noReply, let reply = call.errorReply(DBusError(.unknownObject, "no object at \(call.path?.rawValue ?? "?")")) else { return }
        try? loop.send(reply)
    }

    func removeAll() {}
}
