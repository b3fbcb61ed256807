// What the simulated inputs delivered up to a time, in arrival order.
import MTKTangibles

/// The inputs a simulated world delivered, exactly as the real input sources would hand them
/// to the frame clock: touch contact updates, PERC sensor notifications, and the virtual
/// app's reports of presented overlays.
public struct SimOutput: Hashable, Sendable {
    public var contacts: [ContactUpdate] = []
    public var sensorEvents: [SensorEvent] = []
    public var presented: [PresentedOverlay] = []

    public init() {}

    public var isEmpty: Bool { contacts.isEmpty && sensorEvents.isEmpty && presented.isEmpty }

    /// Adds everything to a frame assembler (then `cut` the frame).
    public func add(to assembler: inout FrameAssembler) {
        for c in contacts { assembler.add(c) }
        for e in sensorEvents { assembler.add(e) }
        for p in presented { assembler.add(p) }
    }

    /// Adds what `other` delivered after this (for collecting several advances).
    public mutating func append(_ other: SimOutput) {
        contacts += other.contacts; sensorEvents += other.sensorEvents; presented += other.presented
    }
}
