// A point in scenario JSON, written as a two-number list `[x, y]` (millimetres).
import MTKTangibles

/// A surface point in a scenario file: `[x, y]` in millimetres.
public struct ScenarioPoint: Hashable, Sendable, Codable, ExpressibleByArrayLiteral {
    public var x: Double
    public var y: Double

    public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    public init(_ v: Vec2) { x = v.x; y = v.y }
    public init(arrayLiteral elements: Double...) {
        precondition(elements.count == 2, "a point has two coordinates")
        x = elements[0]; y = elements[1]
    }

    public var vec: Vec2 { Vec2(x, y) }

    public init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        guard c.count == 2 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a point is [x, y] (two numbers, millimetres)"))
        }
        x = try c.decode(Double.self)
        y = try c.decode(Double.self)
        guard x.isFinite, y.isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a point's coordinates must be finite"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(x); try c.encode(y)
    }
}
