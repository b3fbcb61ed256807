// The objects a connection exports, and the routing of incoming method calls to them.
import Synchronization

/// Routes incoming method calls (on the loop thread) to exported objects. Introspect and
/// Properties are answered on the loop thread at once; user methods run in a Task.
/// Every call gets an answer: unknown objects, interfaces, methods and wrong argument
/// types get the standard D-Bus errors.
final class DBusExportRegistry: Sendable {
    private let objects = Mutex<[DBusObjectPath: DBusExportedObject]>([:])

    func add(_ object: DBusExportedObject) throws {
        try objects.withLock { all in
            guard all[object.path] == nil else {
                throw DBusError(.invalidArgs, "an object is already exported at \(object.path)")
            }
            all[object.path] = object
        }
    }

    func remove(_ object: DBusExportedObject) {
        objects.withLock { all in
            if all[object.path] === object { all[object.path] = nil }
        }
    }

    func removeAll() { objects.withLock { $0 = [:] } }

    func handle(_ message: DBusMessageRef, on loop: DBusEventLoop) {
        guard let path = message.path, let member = message.member else { return }
        let interface = message.interface
        let (object, children) = objects.withLock { all in (all[path], Self.children(of: path, in: all.keys)) }
        let reply = Reply(message: message, loop: loop)
        let arguments: [DBusValue]
        do { arguments = try message.arguments() } catch { return reply.fail(error) }
        let signature = DBusValue.signature(of: arguments)

        switch (interface, member) {
        case ("org.freedesktop.DBus.Introspectable", "Introspect"), (nil, "Introspect"):
            guard object != nil || !children.isEmpty else { return reply.fail(unknownObject(path)) }
            return reply.send([.string(DBusIntrospection.xml(for: object, children: children))])
        default:
            break
        }
        guard let object else { return reply.fail(unknownObject(path)) }
        if interface == DBusConnection.propertiesInterface {
            return handleProperties(member, arguments, signature, object, reply)
        }
        let candidates = interface.map { name in object.interfaces[name].map { [$0] } ?? [] } ?? Array(object.interfaces.values)
        if let interface, candidates.isEmpty {
            return reply.fail(DBusError(.unknownInterface, "\(path) has no interface \(interface)"))
        }
        guard let (owner, method) = candidates.lazy.compactMap({ i in i.methods.first { $0.name == member }.map { (i, $0) } }).first else {
            return reply.fail(DBusError(.unknownMethod, "\(path) has no method \(interface.map { $0 + "." } ?? "")\(member)"))
        }
        guard signature == method.inSignature else {
            return reply.fail(DBusError(.invalidArgs, "\(owner.name).\(member) takes '\(method.inSignature)', got '\(signature)'"))
        }
        let call = DBusMethodCall(sender: message.sender ?? "", path: path, interface: owner.name, member: member, arguments: arguments)
        Task {
            do {
                let out = try await method.handler(call)
                let outSignature = DBusValue.signature(of: out)
                guard outSignature == method.outSignature else {
                    loop.logger.info("handler of \(owner.name).\(member) returned '\(outSignature)' instead of '\(method.outSignature)'")
                    return reply.fail(DBusError(.failed, "\(owner.name).\(member) produced a reply of the wrong type"))
                }
                reply.send(out)
            } catch {
                reply.fail(error)
            }
        }
    }

    private func handleProperties(_ member: String, _ args: [DBusValue], _ signature: DBusSignature,
                                  _ object: DBusExportedObject, _ reply: Reply) {
        switch (member, signature.rawValue) {
        case ("Get", "ss"):
            let (interface, name) = (args[0].string ?? "", args[1].string ?? "")
            guard object.interfaces[interface] != nil else {
                return reply.fail(DBusError(.unknownInterface, "\(object.path) has no interface \(interface)"))
            }
            guard let value = object.property(name, interface: interface) else {
                return reply.fail(DBusError(.unknownProperty, "\(object.path) has no property \(interface).\(name)"))
            }
            reply.send([.variant(value)])
        case ("GetAll", "s"):
            let interface = args[0].string ?? ""
            guard object.interfaces[interface] != nil else {
                return reply.fail(DBusError(.unknownInterface, "\(object.path) has no interface \(interface)"))
            }
            reply.send([.stringVariantDictionary(object.allProperties(of: interface))])
        case ("Set", "ssv"):
            do {
                try object.remoteSet(args[1].string ?? "", interface: args[0].string ?? "", value: args[2])
                reply.send([])
            } catch {
                reply.fail(error)
            }
        case ("Get", _), ("GetAll", _), ("Set", _):
            reply.fail(DBusError(.invalidArgs, "Properties.\(member) got arguments '\(signature)'"))
        default:
            reply.fail(DBusError(.unknownMethod, "org.freedesktop.DBus.Properties has no method \(member)"))
        }
    }

    private func unknownObject(_ path: DBusObjectPath) -> DBusError {
        DBusError(.unknownObject, "no object is exported at \(path)")
    }

    /// Names of the direct children of `path` that lead to exported objects.
    private static func children(of path: DBusObjectPath, in paths: some Sequence<DBusObjectPath>) -> [String] {
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        var names = Set<String>()
        for p in paths where p.rawValue.hasPrefix(prefix) && p != path {
            if let first = p.rawValue.dropFirst(prefix.count).split(separator: "/").first { names.insert(String(first)) }
        }
        return names.sorted()
    }

    /// Sends the one answer a call gets (nothing when the caller asked for no reply).
    private struct Reply: Sendable {
        let message: DBusMessageRef
        let loop: DBusEventLoop

        func send(_ values: [DBusValue]) {
            guard !message.noReply else { return }
            do {
                try loop.send(message.methodReturn(arguments: values))
            } catch {
                fail(error)
            }
        }

        func fail(_ error: any Error) {
            guard !message.noReply else { return }
            let dbusError = error as? DBusError ?? DBusError(.failed, String(describing: error))
            if let reply = message.errorReply(dbusError) { try? loop.send(reply) }
        }
    }
}
