// An immutable value kept behind one reference, so that copying its holder copies a pointer.

/// Holds a large immutable value (a definition, the engine's settings) once. The recognisers
/// are copied in and out of the engine's slot array; with the value inline each copy moved
/// hundreds of bytes and retained every string and array inside it.
final class SharedConstant<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
