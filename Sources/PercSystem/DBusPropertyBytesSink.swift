// A direct receiver for one byte-array property's changes on one object: GATT notifications on the StartNotify path.
import CDBus
import Glibc

/// Registered with `DBusConnection.onPropertyBytes(...)`. The event loop hands such a signal's
/// bytes straight to `deliver` on its thread, read in place with `dbus_message_iter_*`: no
/// `DBusValue` tree, no `DBusSignal`, no pass over the generic subscribers. "Such a signal" is
/// a PropertiesChanged from `sender` on the sink's path whose only change is
/// `interface`.`property` as an `ay` and that invalidates nothing — what BlueZ sends for a
/// notification. Every other signal on that path (other properties, several at once, another
/// type, another sender) goes the usual way, to the generic subscribers.
///
/// Why: decoded the generic way, a notification builds a `DBusValue` per byte, dictionaries
/// and strings, and dbus-daemon often hands over several at once, so the last of a batch
/// waits for the others. Read in place, our share (wake-up → SensorEvent) fell from p50
/// 0.148–0.159 to 0.105–0.115 ms (docs/benchmarks.md, `bench notify`).
struct DBusPropertyBytesSink: Sendable {
    let id: UInt64
    /// The sender's well-known name (`org.bluez`), matched through its current owner.
    let sender: String
    let interface: String
    let property: String
    let deliver: @Sendable (_ bytes: [UInt8], _ receivedAtNanoseconds: UInt64) -> Void

    /// The new value when `message` (a PropertiesChanged signal) is exactly such a change.
    func bytes(of message: OpaquePointer) -> [UInt8]? {
        var args = DBusMessageIter()
        guard dbus_message_iter_init(message, &args) != 0, Self.string(&args, equals: interface),
              dbus_message_iter_next(&args) != 0, dbus_message_iter_get_arg_type(&args) == DBusTypeCode.array,
              dbus_message_iter_get_element_type(&args) == DBusTypeCode.dictEntry else { return nil }
        var changed = DBusMessageIter()
        dbus_message_iter_recurse(&args, &changed)
        guard dbus_message_iter_get_arg_type(&changed) == DBusTypeCode.dictEntry else { return nil }
        var entry = DBusMessageIter()
        dbus_message_iter_recurse(&changed, &entry)
        guard Self.string(&entry, equals: property), dbus_message_iter_next(&entry) != 0,
              dbus_message_iter_get_arg_type(&entry) == DBusTypeCode.variant else { return nil }
        var variant = DBusMessageIter()
        dbus_message_iter_recurse(&entry, &variant)
        guard dbus_message_iter_get_arg_type(&variant) == DBusTypeCode.array,
              dbus_message_iter_get_element_type(&variant) == DBusTypeCode.byte else { return nil }
        // The only change, and nothing invalidated (the third argument, when there, is empty).
        guard dbus_message_iter_next(&changed) == 0 else { return nil }
        if dbus_message_iter_next(&args) != 0 {
            guard dbus_message_iter_get_arg_type(&args) == DBusTypeCode.array else { return nil }
            var invalidated = DBusMessageIter()
            dbus_message_iter_recurse(&args, &invalidated)
            guard dbus_message_iter_get_arg_type(&invalidated) == DBusTypeCode.invalid,
                  dbus_message_iter_next(&args) == 0 else { return nil }
        }
        var array = DBusMessageIter()
        dbus_message_iter_recurse(&variant, &array)
        var pointer: UnsafePointer<UInt8>? = nil
        var count: Int32 = 0
        withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_fixed_array(&array, $0, &count) }
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: Int(count)))
    }

    /// Whether the iterator stands on a string equal to `text` (compared in place).
    private static func string(_ iter: UnsafeMutablePointer<DBusMessageIter>, equals text: String) -> Bool {
        guard dbus_message_iter_get_arg_type(iter) == DBusTypeCode.string else { return false }
        var basic = DBusBasicValue()
        dbus_message_iter_get_basic(iter, &basic)
        guard let s = basic.str else { return false }
        return strcmp(s, text) == 0
    }
}
