// The simulator's state of one tangible: where it is, its marker touches, its sensors and link.
import MTKTangibles

/// One PUC or PERC in a simulated world (internal; the world's API speaks in ids).
struct SimBody: Sendable {
    struct Marker: Sendable {
        var contact: Int64?
        /// Arrival time from which the marker makes a touch (after placement).
        var onsetArrival: Seconds = .infinity
        /// Arrival time until which it is dropped out (flicker, ghost).
        var dropoutUntil: Seconds = -.infinity
    }

    var definition: TangibleDefinition
    var track: SimTrack?
    var onSurface = false
    var markers: [Marker]
    /// Markers that make no touch since placement, until the tangible is moved or touched.
    var suppressed: Set<Int> = []
    var filterAt: Seconds?
    var filtered = false
    var wasMoving = false
    /// Where a finger rests on it (own frame), if one does.
    var touchPoint: Vec2?
    /// A marker the next start of a movement turns into a ghost touch (scenario control).
    var forcedGhost: Int?
    var placementIndex: Int?

    // PERC sensors and link.
    var linkUp = false
    var linkGeneration = 0
    var fieldOn = false
    var sensed: LightColour
    var lastSeen: LightColour?
    var stimulus = 0
    var sequence: UInt16 = 0
    var bootOffset: Seconds
    var lastArrival: Seconds = -.infinity
    var heartbeatGeneration = 0
    var flipGeneration = 0
    var batteryGeneration = 0
    var batteryAtStart: Double

    init(definition: TangibleDefinition, sensed: LightColour, bootOffset: Seconds, battery: Double) {
        self.definition = definition
        self.markers = Array(repeating: Marker(), count: definition.markers.count)
        self.sensed = sensed
        self.bootOffset = bootOffset
        self.batteryAtStart = battery
    }

    var isPerc: Bool { definition.kind == .perc }
    var profile: PercProfile { definition.profile ?? .percV1 }
}
