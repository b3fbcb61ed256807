// The progress and result of an active light test, as /diagnostics/light-test serves it.
import MTKTangibles

/// Progress and result of a light test, as `/diagnostics/light-test` serves it.
public struct LightTestStatus: Codable, Hashable, Sendable {
    public enum State: String, Codable, Sendable { case running, finished, failed }
    public var tangible: TangibleID
    public var name: String
    public var requested: Int
    public var done = 0
    public var answered = 0
    public var missed = 0
    public var state: State = .running
    /// Why it failed, or what it is waiting for.
    public var message: String?
    public var missRate: Double? { done > 0 ? Double(missed) / Double(done) : nil }
    public var latency: LatencyFigures?

    private enum CodingKeys: String, CodingKey { case tangible, name, requested, done, answered, missed, state, message, missRate, latency }

    public init(tangible: TangibleID, name: String, requested: Int) {
        self.tangible = tangible; self.name = name; self.requested = requested
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        tangible = try c.decode(TangibleID.self, forKey: .tangible)
        name = try c.decode(String.self, forKey: .name)
        requested = try c.decode(Int.self, forKey: .requested)
        done = try c.decode(Int.self, forKey: .done)
        answered = try c.decode(Int.self, forKey: .answered)
        missed = try c.decode(Int.self, forKey: .missed)
        state = try c.decode(State.self, forKey: .state)
        message = try c.decodeIfPresent(String.self, forKey: .message)
        latency = try c.decodeIfPresent(LatencyFigures.self, forKey: .latency)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(tangible, forKey: .tangible); try c.encode(name, forKey: .name)
        try c.encode(requested, forKey: .requested); try c.encode(done, forKey: .done)
        try c.encode(answered, forKey: .answered); try c.encode(missed, forKey: .missed)
        try c.encode(state, forKey: .state); try c.encodeIfPresent(message, forKey: .message)
        try c.encodeIfPresent(missRate, forKey: .missRate); try c.encodeIfPresent(latency, forKey: .latency)
    }
}
