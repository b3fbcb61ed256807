// libdbus' type codes as Swift constants (the C macros are casts that Swift does not import).
import CDBus

/// The one-character D-Bus type codes as the `Int32` values libdbus' iterators use.
enum DBusTypeCode {
    static let invalid: Int32 = 0
    static let byte = code("y")
    static let boolean = code("b")
    static let int16 = code("n")
    static let uint16 = code("q")
    static let int32 = code("i")
    static let uint32 = code("u")
    static let int64 = code("x")
    static let uint64 = code("t")
    static let double = code("d")
    static let string = code("s")
    static let objectPath = code("o")
    static let signature = code("g")
    static let unixFD = code("h")
    static let array = code("a")
    static let variant = code("v")
    static let structure = code("r")
    static let dictEntry = code("e")

    private static func code(_ c: Unicode.Scalar) -> Int32 { Int32(c.value) }
}
