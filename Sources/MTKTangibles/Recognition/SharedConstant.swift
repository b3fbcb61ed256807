// An immutable value kept behind one reference, so that copying its holder copies a pointer.

/// Holds a large immutable value (a definition, the engine's settings, a recording's settings) once. The recognisers
/// are copied in and out of the engine's slot array; with the value inline each copy moved
/// hundreds of bytes and retained every string and array inside it.
public final class SharedConstant<Value: Sendable>: Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}

/// Compared and hashed by the value it holds.
extension SharedConstant: Equatable where Value: Equatable {
    public static func == (a: SharedConstant, b: SharedConstant) -> Bool { a === b || a.value == b.value }
}

extension SharedConstant: Hashable where Value: Hashable {
    public func hash(into h: inout Hasher) { h.combine(value) }
}
