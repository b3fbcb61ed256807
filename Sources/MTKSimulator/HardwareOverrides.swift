// A partial HardwareModel: the settings a scenario or a step changes, by key.
import MTKTangibles

import Foundation

/// Some settings of a `HardwareModel`, by their JSON key (e.g. `{"lightMissProbability": 0.1}`).
/// Unknown keys are rejected when decoding, with the list of valid keys.
public struct HardwareOverrides: Hashable, Sendable, Codable {
    /// A setting's new value: a number, or a list of numbers (`scanlineAngles`).
    public enum Value: Hashable, Sendable, Codable, CustomStringConvertible {
        case number(Double)
        case numbers([Double])

        public init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let d = try? c.decode(Double.self) { self = .number(d); return }
            if let ds = try? c.decode([Double].self) { self = .numbers(ds); return }
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected a number or a list of numbers")
        }
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .number(let d): try c.encode(d)
            case .numbers(let ds): try c.encode(ds)
            }
        }
        /// As a setting is written on a command line: `120.0`, or `1.0,2.0` for a list.
        public var description: String {
            switch self {
            case .number(let d): return "\(d)"
            case .numbers(let ds): return ds.map { "\($0)" }.joined(separator: ",")
            }
        }
        var json: Any {
            switch self {
            case .number(let d): return d
            case .numbers(let ds): return ds
            }
        }
    }

    public var values: [String: Value]

    public init(_ values: [String: Value] = [:]) { self.values = values }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let raw = try c.decode([String: Value].self)
        for key in raw.keys.sorted() {
            if let problem = Self.unknownSetting(key) { throw DecodingError.dataCorruptedError(in: c, debugDescription: problem) }
        }
        values = raw
    }

    /// Why `key` is no setting of the hardware model (nil when it is one), naming the settings.
    public static func unknownSetting(_ key: String) -> String? {
        guard HardwareModel.CodingKeys(stringValue: key) == nil else { return nil }
        return "unknown hardware setting '\(key.prefix(80))'; valid settings: \(HardwareModel.CodingKeys.allCases.map(\.stringValue).joined(separator: ", "))"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(values)
    }

    /// `model` with these settings replaced; throws when the result is out of range.
    public func applied(to model: HardwareModel) throws -> HardwareModel {
        guard !values.isEmpty else { return model }
        var dict = model.asDictionary
        for (k, v) in values { dict[k] = v.json }
        let data = try JSONSerialization.data(withJSONObject: dict)
        return try JSONDecoder().decode(HardwareModel.self, from: data)
    }
}

extension HardwareModel {
    /// The settings as a JSON object (key → number or list of numbers).
    var asDictionary: [String: Any] {
        guard let data = try? JSONEncoder().encode(self),
              let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return obj
    }
}
