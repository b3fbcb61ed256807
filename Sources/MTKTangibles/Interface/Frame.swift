// One tick of the frame clock: everything that arrived since the previous frame.

/// The unit of work of the pure core. Every contact update and sensor event in a frame
/// belongs to the frame's timestamp (thesis 3.2.1); each keeps its own arrival time. Several
/// updates of one contact in a frame are its coalesced samples, in arrival order.
public struct Frame: Hashable, Sendable, Codable {
    public var number: UInt64
    public var time: Seconds
    public var contacts: [ContactUpdate]
    public var sensorEvents: [SensorEvent]
    public var presented: [PresentedOverlay]

    public init(number: UInt64, time: Seconds, contacts: [ContactUpdate] = [],
                sensorEvents: [SensorEvent] = [], presented: [PresentedOverlay] = []) {
        self.number = number; self.time = time; self.contacts = contacts
        self.sensorEvents = sensorEvents; self.presented = presented
    }
}

/// Collects timestamped inputs and cuts them into frames. Pure: the caller says when a
/// frame ends (a timer tick, or an app's presented report); nothing here reads a clock.
public struct FrameAssembler: Sendable {
    public private(set) var nextNumber: UInt64 = 1
    public private(set) var lastTime: Seconds = -.infinity
    private var contacts: [ContactUpdate] = []
    private var sensorEvents: [SensorEvent] = []
    private var presented: [PresentedOverlay] = []

    public init() {}

    public mutating func add(_ c: ContactUpdate) { contacts.append(c) }
    public mutating func add(_ e: SensorEvent) { sensorEvents.append(e) }
    public mutating func add(_ p: PresentedOverlay) { presented.append(p) }

    public var pendingCount: Int { contacts.count + sensorEvents.count + presented.count }

    /// Ends the current frame at `time` (never earlier than the previous frame's time).
    public mutating func cut(at time: Seconds) -> Frame {
        let t = max(time, lastTime)
        let f = Frame(number: nextNumber, time: t, contacts: contacts, sensorEvents: sensorEvents, presented: presented)
        nextNumber += 1
        lastTime = t
        contacts.removeAll(keepingCapacity: true)
        sensorEvents.removeAll(keepingCapacity: true)
        presented.removeAll(keepingCapacity: true)
        return f
    }
}
