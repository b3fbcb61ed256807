// Seeded frames for `bench engine`: T PERCs (¾ placed and moving, ¼ searching) among finger touches.

import MTKTangibles
import MTKSimulator

/// The frames of one `bench engine` cell. Every PERC is linked and its field is on. Three
/// quarters of them (as many as the trace budget allows) are placed one after another
/// (1/3 s apart, so each is found by its own window guess) and then slide and turn slowly
/// with marker jitter σ = 0.7 mm; the other quarter stay on the surface without touches, so
/// they search (lightOnly) in every frame. The remaining traces are fingers that wander at
/// 50 mm/s and are lifted and put down elsewhere at 1 % per frame. Light checks are answered
/// from the workload's truth (`markerOwner`) on the next frame, so placed PERCs are found
/// even when fingers begin inside their windows; the searching quarter never is, so they
/// search in every frame, the worst case for the matcher.
struct EngineBenchWorkload {
    let definitions: [TangibleDefinition]
    /// Frames before `measuredFrom` are warm-up (placements); the rest are measured.
    let frames: [Frame]
    let measuredFrom: Int
    let placed: Int
    let fingers: Int
    /// Which PERC made a marker contact.
    let markerOwner: [Int64: TangibleID]

    init(tangibles: Int, traces: Int, measured: Int, seed: UInt64) {
        var rng = SimRandom(seed: seed)
        let surface = Vec2(1400, 900)
        definitions = (1...tangibles).map { TangibleDefinition.standardPerc(id: $0, name: "PERC \($0)") }
        placed = min(tangibles * 3 / 4, traces / 3)
        fingers = traces - 3 * placed
        let origin = InputOrigin(kind: .simulator, device: "bench")
        let dt = 1.0 / 120
        let spacing = 120.0
        let perRow = Int(surface.x / spacing) - 1
        var poses: [Pose] = (0..<placed).map { k in
            Pose(position: Vec2(spacing * Double(1 + k % perRow), spacing * Double(1 + k / perRow)), angle: rng.uniform(0, 6.28))
        }
        var velocities: [Vec2] = (0..<placed).map { _ in Vec2(20, 0).rotated(by: rng.uniform(0, 6.28)) }
        var fingerPos: [Vec2] = (0..<fingers).map { _ in Vec2(rng.uniform(20, surface.x - 20), rng.uniform(20, surface.y - 20)) }
        var fingerVel: [Vec2] = (0..<fingers).map { _ in Vec2(50, 0).rotated(by: rng.uniform(0, 6.28)) }
        var nextContact: Int64 = 1
        var markerContacts: [[Int64]] = Array(repeating: [], count: placed)
        var owner: [Int64: TangibleID] = [:]
        var fingerContact: [Int64] = (0..<fingers).map { _ in defer { nextContact += 1 }; return nextContact }
        let warmup = placed * 40 + 60
        var frames: [Frame] = []
        for n in 0..<(warmup + measured) {
            let t = Double(n + 1) * dt
            var f = Frame(number: UInt64(n + 1), time: t)
            if n == 0 {
                for d in definitions {
                    f.sensorEvents.append(SensorEvent(tangible: d.id, kind: .link, value: 1, arrival: t))
                }
                // The searching quarter: field on from the start, never a touch.
                for d in definitions.dropFirst(placed) {
                    f.sensorEvents.append(SensorEvent(tangible: d.id, kind: .field, value: 1, arrival: t))
                }
            }
            for k in 0..<placed {
                if n == k * 40 {
                    f.sensorEvents.append(SensorEvent(tangible: k + 1, kind: .field, value: 1, arrival: t))
                    markerContacts[k] = (0..<3).map { _ in defer { nextContact += 1 }; return nextContact }
                    for c in markerContacts[k] { owner[c] = k + 1 }
                }
                guard n >= k * 40 else { continue }
                if n > k * 40 {
                    poses[k].position += velocities[k] * dt
                    poses[k].angle = Pose.normalise(poses[k].angle + 0.2 * dt)
                    // Turn back every 2 s: PERCs stay near their slot and never overlap.
                    if n % 240 == 0 { velocities[k] = -velocities[k] }
                }
                for m in 0..<3 {
                    let p = poses[k].apply(definitions[k].markers[m]) + Vec2(rng.gaussian(0.7), rng.gaussian(0.7))
                    f.contacts.append(ContactUpdate(origin: origin, contactID: markerContacts[k][m],
                                                    phase: n == k * 40 ? .begin : .move, position: p, time: t, arrival: t))
                }
            }
            for i in 0..<fingers {
                if n > 0 && rng.chance(0.01) {
                    f.contacts.append(ContactUpdate(origin: origin, contactID: fingerContact[i], phase: .end,
                                                    position: fingerPos[i], time: t, arrival: t))
                    fingerContact[i] = nextContact; nextContact += 1
                    fingerPos[i] = Vec2(rng.uniform(20, surface.x - 20), rng.uniform(20, surface.y - 20))
                    f.contacts.append(ContactUpdate(origin: origin, contactID: fingerContact[i], phase: .begin,
                                                    position: fingerPos[i], time: t, arrival: t))
                    continue
                }
                if rng.chance(0.02) { fingerVel[i] = Vec2(50, 0).rotated(by: rng.uniform(0, 6.28)) }
                fingerPos[i] += fingerVel[i] * dt
                if fingerPos[i].x < 10 || fingerPos[i].x > surface.x - 10 || fingerPos[i].y < 10 || fingerPos[i].y > surface.y - 10 {
                    fingerVel[i] = -fingerVel[i]
                }
                f.contacts.append(ContactUpdate(origin: origin, contactID: fingerContact[i], phase: n == 0 ? .begin : .move,
                                                position: fingerPos[i] + Vec2(rng.gaussian(0.5), rng.gaussian(0.5)),
                                                time: t, arrival: t))
            }
            frames.append(f)
        }
        self.frames = frames
        measuredFrom = warmup
        markerOwner = owner
    }
}
