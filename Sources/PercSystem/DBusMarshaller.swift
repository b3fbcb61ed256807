// Writes Swift `DBusValue`s into a libdbus message (checked first: libdbus aborts on bad input).
import CDBus

/// Appends values to a message body through `dbus_message_iter_*`.
///
/// libdbus treats a value that does not fit its declared type as a programming error and
/// aborts, so every value is checked in Swift (`check(_:)`) before the first byte is written.
enum DBusMarshaller {
    /// Appends `values` to `message`; throws `InvalidArgs` without touching libdbus if a value is malformed.
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws {
        for value in values { try check(value, depth: 0) }
        let signature = DBusValue.signature(of: values)
        guard DBusSignature(rawValue: signature.rawValue) != nil else {
            throw DBusError(.invalidArgs, "the arguments' signature '\(signature)' breaks D-Bus limits (255 characters, 32 nested arrays or structs)")
        }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for value in values {
            guard append(value, &iter) else { throw DBusError(.noMemory, "out of memory while building a D-Bus message") }
        }
    }

    /// Checks what libdbus would otherwise assert on.
    static func check(_ value: DBusValue, depth: Int) throws {
        guard depth < 64 else { throw DBusError(.invalidArgs, "values nested deeper than 64 containers") }
        switch value {
        case .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .objectPath, .signature:
            return
        case .string(let s):
            if s.utf8.contains(0) { throw DBusError(.invalidArgs, "a D-Bus string may not contain a NUL character") }
        case .unixFD(let fd):
            if fd.rawValue == nil { throw DBusError(.invalidArgs, "file descriptor was already taken; it cannot be sent") }
        case .array(let element, let items):
            guard element.isSingleCompleteType else {
                throw DBusError(.invalidArgs, "array element signature '\(element)' must be exactly one complete type")
            }
            for item in items {
                guard item.signatureString == element.rawValue else {
                    throw DBusError(.invalidArgs, "array of '\(element)' holds a value of type '\(item.signatureString)'")
                }
                try check(item, depth: depth + 1)
            }
        case .dictionary(let key, let valueType, let entries):
            guard key.rawValue.utf8.count == 1, let code = key.rawValue.utf8.first, DBusSignature.basicCodes.contains(code) else {
                throw DBusError(.invalidArgs, "dictionary key type '\(key)' must be a basic type (one of ybnqiuxtdsogh)")
            }
            guard valueType.isSingleCompleteType else {
                throw DBusError(.invalidArgs, "dictionary value signature '\(valueType)' must be exactly one complete type")
            }
            for entry in entries {
                guard entry.key.signatureString == key.rawValue, entry.value.signatureString == valueType.rawValue else {
                    throw DBusError(.invalidArgs, "dictionary a{\(key)\(valueType)} holds an entry of types '\(entry.key.signatureString)', '\(entry.value.signatureString)'")
                }
                try check(entry.key, depth: depth + 1)
                try check(entry.value, depth: depth + 1)
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw DBusError(.invalidArgs, "a D-Bus struct needs at least one field") }
            for field in fields { try check(field, depth: depth + 1) }
        case .variant(let inner):
            try check(inner, depth: depth + 1)
        }
    }

    private static func append(_ value: DBusValue, _ iter: UnsafeMutablePointer<DBusMessageIter>) -> Bool {
        switch value {
        case .byte(let v): return basic(DBusTypeCode.byte, v, iter)
        case .boolean(let v): return basic(DBusTypeCode.boolean, dbus_bool_t(v ? 1 : 0), iter)
        case .int16(let v): return basic(DBusTypeCode.int16, v, iter)
        case .uint16(let v): return basic(DBusTypeCode.uint16, v, iter)
        case .int32(let v): return basic(DBusTypeCode.int32, v, iter)
        case .uint32(let v): return basic(DBusTypeCode.uint32, v, iter)
        case .int64(let v): return basic(DBusTypeCode.int64, v, iter)
        case .uint64(let v): return basic(DBusTypeCode.uint64, v, iter)
        case .double(let v): return basic(DBusTypeCode.double, v, iter)
        case .string(let s): return string(DBusTypeCode.string, s, iter)
        case .objectPath(let p): return string(DBusTypeCode.objectPath, p.rawValue, iter)
        case .signature(let g): return string(DBusTypeCode.signature, g.rawValue, iter)
        case .unixFD(let fd):
            // libdbus duplicates the descriptor; ours stays open and owned by `fd`.
            return basic(DBusTypeCode.unixFD, Int32(fd.rawValue ?? -1), iter)
        case .array(let element, let items):
            if element.rawValue == "y" { return byteArray(items, iter) }
            return container(DBusTypeCode.array, element.rawValue, iter) { sub in
                items.allSatisfy { append($0, sub) }
            }
        case .dictionary(let key, let valueType, let entries):
            return container(DBusTypeCode.array, "{" + key.rawValue + valueType.rawValue + "}", iter) { sub in
                entries.allSatisfy { entry in
                    container(DBusTypeCode.dictEntry, nil, sub) { e in append(entry.key, e) && append(entry.value, e) }
                }
            }
        case .structure(let fields):
            return container(DBusTypeCode.structure, nil, iter) { sub in fields.allSatisfy { append($0, sub) } }
        case .variant(let inner):
            return container(DBusTypeCode.variant, inner.signatureString, iter) { sub in append(inner, sub) }
        }
    }

    private static func basic<T>(_ type: Int32, _ value: T, _ iter: UnsafeMutablePointer<DBusMessageIter>) -> Bool {
        withUnsafePointer(to: value) { dbus_message_iter_append_basic(iter, type, $0) != 0 }
    }

    private static func string(_ type: Int32, _ s: String, _ iter: UnsafeMutablePointer<DBusMessageIter>) -> Bool {
        s.withCString { cString in
            let pointer: UnsafePointer<CChar>? = cString
            return withUnsafePointer(to: pointer) { dbus_message_iter_append_basic(iter, type, $0) != 0 }
        }
    }

    /// `ay` in one call: the common case of BLE values.
    private static func byteArray(_ items: [DBusValue], _ iter: UnsafeMutablePointer<DBusMessageIter>) -> Bool {
        let bytes: [UInt8] = items.map { if case .byte(let b) = $0 { b } else { 0 } }
        return container(DBusTypeCode.array, "y", iter) { sub in
            bytes.withUnsafeBufferPointer { buffer in
                let base: UnsafePointer<UInt8>? = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)
                return withUnsafePointer(to: base) {
                    dbus_message_iter_append_fixed_array(sub, DBusTypeCode.byte, $0, Int32(buffer.count)) != 0
                }
            }
        }
    }

    private static func container(
        _ type: Int32, _ signature: String?, _ iter: UnsafeMutablePointer<DBusMessageIter>,
        _ body: (UnsafeMutablePointer<DBusMessageIter>) -> Bool
    ) -> Bool {
        var sub = DBusMessageIter()
        let opened: Bool
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(iter, type, $0, &sub) } != 0
        } else {
            opened = dbus_message_iter_open_container(iter, type, nil, &sub) != 0
        }
        guard opened else { return false }
        guard body(&sub) else {
            dbus_message_iter_abandon_container(iter, &sub)
            return false
        }
        return dbus_message_iter_close_container(iter, &sub) != 0
    }
}
