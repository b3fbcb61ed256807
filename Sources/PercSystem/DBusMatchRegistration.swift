// AddMatch/RemoveMatch with the bus daemon, plus owner tracking for well-known senders.

/// Tells the bus which signals we want. Rules with a well-known sender (e.g. `org.bluez`)
/// also follow that name's owner so the event loop can check senders locally.
enum DBusMatchRegistration {
    static func add(_ rule: DBusMatchRule, on connection: DBusConnection) async throws {
        let loop = connection.loop
        if rule.senderIsWellKnown, let name = rule.sender, loop.retainOwnerWatch(name) {
            do {
                _ = try await connection.callBus("AddMatch", [.string(ownerRule(name).description)])
                let owner = try await connection.nameOwner(of: name) ?? ""
                loop.setOwner(owner, of: name)
            } catch {
                releaseOwner(name, on: loop)
                throw error
            }
        }
        do {
            _ = try await connection.callBus("AddMatch", [.string(rule.description)])
        } catch {
            if rule.senderIsWellKnown, let name = rule.sender { releaseOwner(name, on: loop) }
            throw error
        }
    }

    /// Fire and forget: called from cancel() and stream termination, which cannot wait.
    static func remove(_ rule: DBusMatchRule, on loop: DBusEventLoop) {
        guard loop.isOpen else { return }
        sendBus("RemoveMatch", rule.description, loop)
        if rule.senderIsWellKnown, let name = rule.sender { releaseOwner(name, on: loop) }
    }

    private static func releaseOwner(_ name: String, on loop: DBusEventLoop) {
        if loop.releaseOwnerWatch(name) { sendBus("RemoveMatch", ownerRule(name).description, loop) }
    }

    private static func ownerRule(_ name: String) -> DBusMatchRule {
        DBusMatchRule(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                      member: "NameOwnerChanged", arguments: [0: name])
    }

    private static func sendBus(_ member: String, _ text: String, _ loop: DBusEventLoop) {
        guard let message = try? DBusMessageRef.methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: member, arguments: [.string(text)]) else { return }
        message.setNoReply()
        try? loop.send(message)
    }
}
