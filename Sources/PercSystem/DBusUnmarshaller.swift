// Reads a libdbus message body into Swift `DBusValue`s (fds become owned `DBusFileDescriptor`s).
import CDBus

/// Reads message bodies through `dbus_message_iter_*`. libdbus has validated the wire format
/// already; anything still unexpected becomes a `DBusError`, never a crash.
enum DBusUnmarshaller {
    /// All arguments of `message`.
    static func arguments(of message: OpaquePointer) throws -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != DBusTypeCode.invalid {
            values.append(try read(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    private static func read(_ iter: UnsafeMutablePointer<DBusMessageIter>) throws -> DBusValue {
        let type = dbus_message_iter_get_arg_type(iter)
        var basic = DBusBasicValue()
        func getBasic() { dbus_message_iter_get_basic(iter, &basic) }
        switch type {
        case DBusTypeCode.byte: getBasic(); return .byte(basic.byt)
        case DBusTypeCode.boolean: getBasic(); return .boolean(basic.bool_val != 0)
        case DBusTypeCode.int16: getBasic(); return .int16(basic.i16)
        case DBusTypeCode.uint16: getBasic(); return .uint16(basic.u16)
        case DBusTypeCode.int32: getBasic(); return .int32(basic.i32)
        case DBusTypeCode.uint32: getBasic(); return .uint32(basic.u32)
        case DBusTypeCode.int64: getBasic(); return .int64(Int64(basic.i64))
        case DBusTypeCode.uint64: getBasic(); return .uint64(UInt64(basic.u64))
        case DBusTypeCode.double: getBasic(); return .double(basic.dbl)
        case DBusTypeCode.string: getBasic(); return .string(cString(basic.str))
        case DBusTypeCode.objectPath: getBasic(); return .objectPath(DBusObjectPath(unchecked: cString(basic.str)))
        case DBusTypeCode.signature: getBasic(); return .signature(DBusSignature(unchecked: cString(basic.str)))
        case DBusTypeCode.unixFD:
            // libdbus hands out a fresh duplicate each time: we own it from here on.
            getBasic()
            guard basic.fd >= 0 else { throw DBusError(.invalidArgs, "message carried an invalid file descriptor") }
            return .unixFD(DBusFileDescriptor(owning: basic.fd))
        case DBusTypeCode.array: return try readArray(iter)
        case DBusTypeCode.structure:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(iter, &sub)
            var fields: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != DBusTypeCode.invalid {
                fields.append(try read(&sub))
                dbus_message_iter_next(&sub)
            }
            guard !fields.isEmpty else { throw DBusError(.invalidSignature, "received an empty struct") }
            return .structure(fields)
        case DBusTypeCode.variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(iter, &sub)
            guard dbus_message_iter_get_arg_type(&sub) != DBusTypeCode.invalid else {
                throw DBusError(.invalidSignature, "received an empty variant")
            }
            return .variant(try read(&sub))
        default:
            throw DBusError(.invalidSignature, "received an unknown D-Bus type code \(type)")
        }
    }

    private static func readArray(_ iter: UnsafeMutablePointer<DBusMessageIter>) throws -> DBusValue {
        guard let raw = dbus_message_iter_get_signature(iter) else {
            throw DBusError(.noMemory, "out of memory while reading a D-Bus array")
        }
        let signature = String(cString: raw)
        dbus_free(raw)
        let element = String(signature.dropFirst())
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(iter, &sub)
        let elementType = dbus_message_iter_get_element_type(iter)
        if elementType == DBusTypeCode.byte {
            var pointer: UnsafePointer<UInt8>? = nil
            var count: Int32 = 0
            withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_fixed_array(&sub, $0, &count) }
            let bytes = UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(count))
            return .array(element: "y", bytes.map { .byte($0) })
        }
        if elementType == DBusTypeCode.dictEntry {
            // element is "{kv}": the key is one basic code, the value the rest.
            let inner = element.dropFirst().dropLast()
            let key = DBusSignature(unchecked: String(inner.prefix(1)))
            let value = DBusSignature(unchecked: String(inner.dropFirst()))
            var entries: [DBusDictEntry] = []
            while dbus_message_iter_get_arg_type(&sub) == DBusTypeCode.dictEntry {
                var entry = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &entry)
                let k = try read(&entry)
                guard dbus_message_iter_next(&entry) != 0 else {
                    throw DBusError(.invalidSignature, "received a dictionary entry without a value")
                }
                entries.append(DBusDictEntry(k, try read(&entry)))
                dbus_message_iter_next(&sub)
            }
            return .dictionary(key: key, value: value, entries)
        }
        var items: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&sub) != DBusTypeCode.invalid {
            items.append(try read(&sub))
            dbus_message_iter_next(&sub)
        }
        return .array(element: DBusSignature(unchecked: element), items)
    }

    private static func cString(_ p: UnsafeMutablePointer<CChar>?) -> String {
        p.map { String(cString: $0) } ?? ""
    }
}
