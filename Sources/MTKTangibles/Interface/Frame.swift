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
    /// Whether light-check patches reach a display in this frame (an app that draws the
    /// overlay is connected, or the display is simulated). Without one no light check runs:
    /// nothing may be concluded from patches nobody showed, and PERCs are guessed from
    /// their traces instead (provenance `guessed`).
    public var drawing: Bool

    public init(number: UInt64, time: Seconds, contacts: [ContactUpdate] = [],
                sensorEvents: [SensorEvent] = [], presented: [PresentedOverlay] = [], drawing: Bool = true) {
        self.number = number; self.time = time; self.contacts = contacts
        self.sensorEvents = sensorEvents; self.presented = presented; self.drawing = drawing
    }

    private enum CodingKeys: String, CodingKey { case number, time, contacts, sensorEvents, presented, drawing }

    /// `drawing` absent (frames written before it existed) reads as true: checks ran then.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(number: try c.decode(UInt64.self, forKey: .number), time: try c.decode(Seconds.self, forKey: .time),
                  contacts: try c.decode([ContactUpdate].self, forKey: .contacts),
                  sensorEvents: try c.decode([SensorEvent].self, forKey: .sensorEvents),
                  presented: try c.decode([PresentedOverlay].self, forKey: .presented),
                  drawing: try c.decodeIfPresent(Bool.self, forKey: .drawing) ?? true)
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
    /// Whether the frames cut from now on reach a display (see `Frame.drawing`).
    public var drawing = true

    public init() {}

    public mutating func add(_ c: ContactUpdate) { contacts.append(c) }
    public mutating func add(_ e: SensorEvent) { sensorEvents.append(e) }
    public mutating func add(_ p: PresentedOverlay) { presented.append(p) }

    public var pendingCount: Int { contacts.count + sensorEvents.count + presented.count }

    /// Ends the current frame at `time` (never earlier than the previous frame's time).
    public mutating func cut(at time: Seconds) -> Frame {
        let t = max(time, lastTime)
        let f = Frame(number: nextNumber, time: t, contacts: contacts, sensorEvents: sensorEvents, presented: presented, drawing: drawing)
        nextNumber += 1
        lastTime = t
        contacts.removeAll(keepingCapacity: true)
        sensorEvents.removeAll(keepingCapacity: true)
        presented.removeAll(keepingCapacity: true)
        return f
    }
}
