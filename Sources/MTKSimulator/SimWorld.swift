// A seeded virtual touch table with PUCs, PERCs and fingers that emits what real inputs emit.
import MTKTangibles

/// A deterministic simulation of a touch surface, PUCs, PERCs (field and light sensors, BLE
/// link) and fingers, misbehaving as `HardwareModel` says (HARDWARE-MODEL.md).
///
/// Time is virtual: act at the current time (`now`), then `advance(to:)` to collect the
/// contact updates and sensor events that arrived up to then. Tell it what the app draws
/// with `present(_:at:)`; the PERCs' light sensors react to it. The same seed and the same
/// calls give the same output, bit for bit. `truth` says who made each contact.
public struct SimWorld: Sendable {
    public internal(set) var now: Seconds = 0
    public internal(set) var model: HardwareModel
    /// Surface size in millimetres.
    public let surface: Vec2
    public internal(set) var background: LightColour
    public internal(set) var truth = SimTruth()
    /// The input origin of every contact (kind `.simulator`).
    public let origin: InputOrigin
    /// The overlay on screen now.
    public internal(set) var currentOverlay = Overlay.empty
    /// `demo --display screen`: what a real screen shows at a surface point, read instead of the
    /// simulated display's overlay (nil: the simulated display). The world does no I/O itself;
    /// whoever sets this does, and the run is then no longer reproducible from its seed.
    public var screen: (@Sendable (Vec2) -> LightColour)?

    var rng: SimRandom
    var bodies: [SimBody] = []
    var index: [TangibleID: Int] = [:]
    var fingers: [SimFinger] = []
    var ghosts: [(id: Int64, position: Vec2, endAt: Seconds)] = []
    var queue = SimEventQueue()
    var tickIndex: Int = 0
    var nextContactID: Int64 = 1
    var pendingContacts: [ContactUpdate] = []
    var pendingSensor: [SensorEvent] = []
    var pendingPresented: [PresentedOverlay] = []
    var lastPositions: [Int64: Vec2] = [:]

    public init(seed: UInt64, surface: Vec2 = Vec2(800, 500), model: HardwareModel = HardwareModel(),
                background: LightColour = .black, device: String = "sim") {
        self.rng = SimRandom(seed: seed)
        self.surface = surface
        self.model = model
        self.background = background
        self.origin = InputOrigin(kind: .simulator, device: device)
    }

    // MARK: Setting up

    /// Adds a tangible (off the surface). A PERC's link comes up now when `linked`.
    public mutating func add(_ definition: TangibleDefinition, linked: Bool = true) {
        precondition(index[definition.id] == nil, "tangible \(definition.id) added twice")
        let body = SimBody(definition: definition, sensed: background,
                           bootOffset: rng.uniform(0, 3600), battery: rng.uniform(70, 100))
        index[definition.id] = bodies.count
        bodies.append(body)
        if body.isPerc {
            scheduleFlip(bodies.count - 1)
            if linked { linkReturn(definition.id) }
        }
    }

    /// The tangibles of this world.
    public var definitions: [TangibleDefinition] { bodies.map(\.definition) }

    /// Replaces the hardware model from now on.
    public mutating func setModel(_ newModel: HardwareModel) {
        model = newModel
        tickIndex = Int((now * model.touchSampleRate).rounded(.up))
        if Double(tickIndex) / model.touchSampleRate <= now { tickIndex += 1 }
        for i in bodies.indices where bodies[i].isPerc { scheduleFlip(i) }
    }

    /// Changes some settings from now on.
    public mutating func apply(_ overrides: HardwareOverrides) throws {
        setModel(try overrides.applied(to: model))
    }

    /// What the app shows where it draws no patch (a scene change under a sensor is seen).
    public mutating func setBackground(_ colour: LightColour) {
        background = colour
        for i in bodies.indices { evaluateLight(i, at: now) }
    }

    // MARK: Tangibles

    /// Sets a tangible down now at `pose`. `touches` names the markers that make a touch
    /// (default: as the hardware model decides: all three, or fewer in its special cases).
    public mutating func place(_ id: TangibleID, at pose: Pose, touches: [Int]? = nil) {
        guard let i = index[id] else { return }
        if bodies[i].onSurface { lift(id) }
        let t = now
        var b = bodies[i]
        if b.track == nil { b.track = SimTrack(at: t, position: pose.position, angle: pose.angle) }
        b.track!.jump(at: t, position: pose.position, angle: pose.angle)
        b.onSurface = true
        b.wasMoving = false
        b.filtered = false
        b.filterAt = nil
        b.lastSeen = nil

        let count = b.markers.count
        var touching = Array(0..<count)
        var reduced: SimTruth.ReducedTouches?
        if let forced = touches {
            touching = forced.filter { (0..<count).contains($0) }
            if touching.count < count { reduced = .scenario }
        } else if b.touchPoint == nil {
            if rng.chance(model.singleTouchProbability) {
                touching = [rng.int(0...(count - 1))]
                reduced = .singleTouch
            } else if nearScanline(pose.angle), rng.chance(model.scanlineTwoTouchProbability) {
                touching.remove(at: rng.int(0...(count - 1)))
                reduced = .scanline
            }
        }
        b.suppressed = Set(0..<count).subtracting(touching)

        let fieldAt = t + model.fieldSensorDelay
        let latency = bleLatency()
        let anchor = fieldAt + latency
        var onsets: [Seconds] = []
        for m in 0..<count {
            let offset = rng.chance(model.markerOnsetInWindowProbability)
                ? rng.uniform(-model.markerOnsetWindow, model.markerOnsetWindow)
                : rng.uniform(model.markerOnsetWindow, max(model.markerOnsetWindow, model.markerOnsetLateMax))
            b.markers[m].onsetArrival = anchor + offset
            b.markers[m].dropoutUntil = -.infinity
            onsets.append(anchor + offset)
        }
        truth.placements.append(SimTruth.Placement(
            tangible: id, placedAt: t, pose: pose, fieldOnAt: fieldAt, fieldOnArrival: nil,
            touchingMarkers: touching, markerOnsets: touching.map { onsets[$0] }, reducedBy: reduced, liftedAt: nil))
        b.placementIndex = truth.placements.count - 1
        bodies[i] = b
        if b.isPerc {
            queue.schedule(.field(id, on: true, latency: latency, placement: b.placementIndex), at: fieldAt)
        }
    }

    /// Moves a tangible from now along `waypoints` (the last is the goal), turning by `turn`
    /// radians (clockwise), in `duration` seconds. `ghostMarker` turns that marker's touch
    /// into a ghost touch as the movement starts (thesis 3.3.1).
    public mutating func move(_ id: TangibleID, through waypoints: [Vec2], turn: Double = 0,
                              duration: Seconds, ghostMarker: Int? = nil) {
        guard let i = index[id], bodies[i].onSurface else { return }
        bodies[i].track!.move(at: now, through: waypoints, turn: turn, duration: duration)
        bodies[i].forcedGhost = ghostMarker
    }

    /// Moves a tangible from now to `pose` in `duration` seconds, turning the shorter way.
    public mutating func move(_ id: TangibleID, to pose: Pose, duration: Seconds) {
        guard let current = truePose(of: id) else { return }
        var turn = pose.angle - current.angle
        if turn > Double.pi { turn -= 2 * Double.pi }
        if turn < -Double.pi { turn += 2 * Double.pi }
        move(id, through: [pose.position], turn: turn, duration: duration)
    }

    /// Lifts a tangible off the surface now: its touches end, its field sensor goes off.
    public mutating func lift(_ id: TangibleID) {
        guard let i = index[id], bodies[i].onSurface else { return }
        bodies[i].track!.cut(at: now)
        bodies[i].onSurface = false
        bodies[i].lastSeen = nil
        bodies[i].touchPoint = nil
        for m in bodies[i].markers.indices { bodies[i].markers[m].onsetArrival = .infinity }
        if let p = bodies[i].placementIndex { truth.placements[p].liftedAt = now }
        if bodies[i].isPerc {
            queue.schedule(.field(id, on: false, latency: bleLatency(), placement: nil), at: now + model.fieldSensorDelay)
        }
    }

    /// A finger rests on the tangible from now (at `point` in the tangible's own frame): all
    /// its markers touch, nothing is filtered, and its touches shift towards the finger.
    public mutating func touch(_ id: TangibleID, at point: Vec2 = .zero) {
        guard let i = index[id] else { return }
        bodies[i].touchPoint = point
    }

    /// The finger leaves the tangible.
    public mutating func release(_ id: TangibleID) {
        guard let i = index[id] else { return }
        bodies[i].touchPoint = nil
    }

    /// Makes a marker's touch drop out now for `frames` touch samples (then a new contact).
    public mutating func flicker(_ id: TangibleID, marker: Int, frames: Int) {
        guard let i = index[id], bodies[i].markers.indices.contains(marker) else { return }
        let arrival = now + model.touchReportLatency
        bodies[i].markers[marker].dropoutUntil = arrival + (Double(frames) + 0.5) / model.touchSampleRate
    }

    // MARK: Fingers

    /// Puts finger `id` down now at `position`.
    public mutating func fingerDown(_ id: Int, at position: Vec2) {
        fingerUp(id)
        fingers.append(SimFinger(id: id, track: SimTrack(at: now, position: position, angle: 0)))
    }

    /// Moves finger `id` from now along `waypoints` in `duration` seconds.
    public mutating func fingerMove(_ id: Int, through waypoints: [Vec2], duration: Seconds) {
        guard let f = fingers.firstIndex(where: { $0.id == id && $0.down }) else { return }
        fingers[f].track.move(at: now, through: waypoints, turn: 0, duration: duration)
    }

    /// Lifts finger `id` now.
    public mutating func fingerUp(_ id: Int) {
        for f in fingers.indices where fingers[f].id == id && fingers[f].down {
            fingers[f].down = false
            fingers[f].track.cut(at: now)
        }
    }

    // MARK: Link

    /// The PERC goes out of range now; the host notices after the supervision timeout.
    public mutating func linkLoss(_ id: TangibleID) {
        guard let i = index[id], bodies[i].isPerc, bodies[i].linkUp else { return }
        bodies[i].linkUp = false
        bodies[i].linkGeneration += 1
        queue.schedule(.linkLostNotice(id, generation: bodies[i].linkGeneration), at: now + model.linkSupervisionTimeout)
    }

    /// The PERC is back in range and connects now; it reports its current state.
    public mutating func linkReturn(_ id: TangibleID) {
        guard let i = index[id], bodies[i].isPerc, !bodies[i].linkUp else { return }
        bodies[i].linkUp = true
        bodies[i].linkGeneration += 1
        emitLink(i, up: true)
        if bodies[i].profile == .percV1 {
            notifyBattery(i)
            scheduleBattery(i)
        }
        notify(i, .field, bodies[i].fieldOn ? 1 : 0)
        notify(i, .light, bodies[i].sensed.sensorValue)
    }

    // MARK: Display

    /// The app shows `overlay` from time `time` on (not before `now`); the light sensors see
    /// it, and the virtual app reports it as presented.
    public mutating func present(_ overlay: Overlay, at time: Seconds) {
        let t = max(time, now)
        queue.schedule(.present(overlay), at: t)
        pendingPresented.append(PresentedOverlay(overlayID: overlay.id, from: t))
    }

    /// When an overlay an app draws `renderTime` after `time` is on screen: the display's next
    /// refresh (`model.displayFrameRate`).
    public func nextRefresh(after time: Seconds, renderTime: Seconds = 0.002) -> Seconds {
        let rate = model.displayFrameRate
        return ((time + renderTime) * rate).rounded(.up) / rate
    }

    /// The app draws `overlay` at frame time `time`: on screen at the display's next refresh.
    public mutating func presentAtNextRefresh(_ overlay: Overlay, after time: Seconds, renderTime: Seconds = 0.002) {
        present(overlay, at: nextRefresh(after: time, renderTime: renderTime))
    }

    /// The colour the display shows at a surface point now.
    public func colour(at point: Vec2) -> LightColour {
        if let screen { return screen(point) }
        for patch in currentOverlay.patches.reversed() where patch.center.distance(to: point) <= patch.radius {
            return patch.colour
        }
        return background
    }

    // MARK: Truth

    /// Where the tangible really is at `time` (default now); nil when it is not on the surface then.
    public func truePose(of id: TangibleID, at time: Seconds? = nil) -> Pose? {
        let t = time ?? now
        guard let i = index[id], let track = bodies[i].track else { return nil }
        guard let p = truth.placements.last(where: { $0.tangible == id && $0.placedAt <= t }),
              p.liftedAt.map({ t < $0 }) ?? true else { return nil }
        return track.pose(at: t)
    }

    /// Where the PERC's light sensor really is now; nil off the surface or for a PUC.
    public func trueSensorPosition(of id: TangibleID) -> Vec2? {
        guard let i = index[id], let offset = bodies[i].definition.lightSensorOffset,
              let pose = truePose(of: id) else { return nil }
        return pose.apply(offset)
    }

    /// Whether the tangible is on the surface now (placed and not lifted).
    public func isOnSurface(_ id: TangibleID) -> Bool { index[id].map { bodies[$0].onSurface } ?? false }
    /// Whether the PERC's BLE link is up now (in range).
    public func isLinked(_ id: TangibleID) -> Bool { index[id].map { bodies[$0].linkUp } ?? false }
    /// The light state the PERC's sensor holds now (what it last reported, or would report).
    public func sensedLight(of id: TangibleID) -> LightColour? { index[id].map { bodies[$0].sensed } }
    /// Where finger `id` is now, if it is down.
    public func fingerPosition(_ id: Int) -> Vec2? {
        fingers.last { $0.id == id && $0.down }?.track.pose(at: now).position
    }

    /// Fingers down now, by id.
    public var fingersDown: [Int] { fingers.filter(\.down).map(\.id) }

    func nearScanline(_ angle: Double) -> Bool {
        let deg = angle * 180 / Double.pi
        return model.scanlineAngles.contains { a in
            let d = (deg - a).truncatingRemainder(dividingBy: 360)
            return min(abs(d), 360 - abs(d)) <= model.scanlineTolerance
        }
    }
}
