// Exporting objects: put a Swift object with interfaces on the bus at a path.

extension DBusConnection {
    /// Exports an object at `path` with `interfaces`. Calls are answered from the event loop
    /// (Introspect, Properties) or from a Task running the method's handler. Throws if the
    /// path is taken or a name or property value is invalid.
    ///
    /// ```swift
    /// let object = try bus.export("/org/percbridge/Control", interfaces: [control])
    /// try object.setProperty("State", interface: "org.percbridge.Control1", to: .string("ready"))
    /// ```
    @discardableResult
    public func export(_ path: DBusObjectPath, interfaces: [DBusInterface]) throws -> DBusExportedObject {
        for interface in interfaces { try interface.validate() }
        let object = DBusExportedObject(path: path, interfaces: interfaces, loop: loop)
        try loop.exports.add(object)
        return object
    }
}
