// A tangible event stamped with the tangible and the frame it happened in.

/// An event of the engine's output (`EngineOutput.events`).
public struct EngineEvent: Hashable, Sendable, Codable, CustomStringConvertible {
    public var tangible: TangibleID
    public var frame: UInt64
    public var time: Seconds
    public var event: TangibleEvent

    public init(tangible: TangibleID, frame: UInt64, time: Seconds, event: TangibleEvent) {
        self.tangible = tangible; self.frame = frame; self.time = time; self.event = event
    }

    public var description: String {
        switch event {
        case .transition(let from, let to, let reason):
            return "tangible \(tangible): \(from.rawValue) → \(reason.rawValue) → \(to.rawValue)"
        default:
            return "tangible \(tangible): \(event)"
        }
    }
}
