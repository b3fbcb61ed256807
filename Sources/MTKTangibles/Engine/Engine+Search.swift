// Step (5) of the engine: offering candidates to the tangibles that search for their traces.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Engine {
    /// What a searching tangible looks for this frame: a PERC what its machine needs, a PUC
    /// every open triple.
    private enum Want { case perc(PercMachine.SearchNeed), puc }

    /// By index, and `mutating` though it changes nothing: a `TangibleSlot` argument copied
    /// the slot, and a non-mutating method called from `search` copied the whole engine.
    private mutating func want(_ i: Int) -> Want? {
        if slots[i].puc != nil { return slots[i].puc!.track == nil ? .puc : nil }
        guard slots[i].perc != nil else { return nil }
        return slots[i].perc!.searchNeed(canCheck: canCheck(i)).map(Want.perc)
    }

    /// Whether tangible `i` can be light-checked this frame: the overlay reaches a display
    /// and its light sensor's offset is known.
    func canCheck(_ i: Int) -> Bool { drawing && slots[i].definition.lightSensorOffset != nil }

    /// With no light check to decide, a triple that several searching PERCs could take goes
    /// to the one whose field came on nearest the time its traces began (ties: the lower
    /// id). Every claimant computes the same order, so exactly one of them takes it.
    private func ownsByTiming(_ c: Candidate, _ i: Int, against rivals: [Int]) -> Bool {
        let began = (c.earliestBegin + c.latestBegin) / 2
        func key(_ k: Int) -> (Double, TangibleID)? {
            guard let f = slots[k].perc?.fieldOnAt else { return nil }
            return (abs(began - f), slots[k].id)
        }
        guard let mine = key(i) else { return false }
        return rivals.allSatisfy { j in key(j).map { mine < $0 } ?? true }
    }

    /// Triples of `candidates` that a PERC not yet on the surface could still announce as its
    /// own (`awaitUnannounced`): a linked PERC whose field is off (`inRange`) and whose
    /// pattern fits the triple, while the triple's first touch began less than `timeWindow`
    /// ago (its field-on, arriving later, would still open a window holding the triple). Two
    /// PERCs of one pattern set down together: the first one's field-on can come while only
    /// the second one's touches have all begun, and a window guess then takes the wrong
    /// triple (bench crowded, seed 32: PERC 13 on PERC 14's triple for 20 frames). Only
    /// when light can check (`canCheck`): then light decides instead of a guess.
    private func awaitedTriples(_ candidates: [Candidate], _ i: Int, announcers: [Int], _ scene: FrameScene) -> Set<[TraceID]> {
        guard config.awaitUnannounced, canCheck(i), !announcers.isEmpty else { return [] }
        var out: Set<[TraceID]> = []
        for c in candidates where !c.isTuple && scene.now < c.earliestBegin + config.timeWindow {
            let points = c.traces.compactMap { $0.flatMap { scene.slot[$0] }.map { scene.positions[$0] } }
            guard points.count == 3 else { continue }
            for j in announcers where j != i {
                let tol = slots[j].jitter.tolerance(config)
                if slots[j].group == slots[i].group || slots[j].pattern.fit(points, tolerance: tol) != nil {
                    out.insert(c.traceSet)
                    break
                }
            }
        }
        return out
    }

    /// The triples with, after each, the other ways its three traces fit the pattern within
    /// tolerance: a nearly symmetric pattern (a near-equilateral one: each cyclic order,
    /// 120° apart) fits its traces in more than one way, and the best fit flips with jitter,
    /// so the best one alone is the wrong pose in a share of cases. Light tells them apart
    /// when their sensor positions lie `minHypothesisSeparation` apart; closer ones are left
    /// out (the first one stands for them). Only for PERCs (light can check them).
    /// A way the running identify check holds stays while it fits within tolerance ×
    /// `deformationSlack` (see `rebuild`): its hypothesis stays put while it is checked.
    /// With no light check possible this frame, only the likeliest way of each is offered
    /// (a guess takes the best fit, and one sample's best fit is the wrong turn more often).
    func withAlternatives(_ candidates: [Candidate], _ i: Int, _ scene: FrameScene) -> [Candidate] {
        guard slots[i].definition.lightSensorOffset != nil, candidates.contains(where: { !$0.isTuple }) else { return candidates }
        let groups = turnGroups(candidates, i, scene)
        guard canCheck(i) else { return groups.map(\.lead) }
        var out: [Candidate] = []
        out.reserveCapacity(candidates.count)
        for g in groups {
            out.append(g.lead)
            out.append(contentsOf: g.others)
        }
        return out
    }

    /// Each candidate in its likeliest way (`turns(of:)`), with the other ways light can tell
    /// apart from it (none without a light sensor). A way is offered once: a later candidate
    /// that is an earlier one's way (a verifying list holds several) is not offered again, and
    /// the finder's own way stays on offer when the means put another first.
    func turnGroups(_ candidates: [Candidate], _ i: Int, _ scene: FrameScene) -> [(lead: Candidate, others: [Candidate])] {
        let offset = slots[i].definition.lightSensorOffset
        let checked = slots[i].perc?.pendingCheck.flatMap { $0.kind == .identify ? $0.candidates : nil } ?? []
        var groups: [(lead: Candidate, others: [Candidate])] = []
        groups.reserveCapacity(candidates.count)
        var offered: [Candidate] = []
        offered.reserveCapacity(candidates.count)
        for c in candidates {
            if offered.contains(where: { $0.traces == c.traces }) { continue }
            let ways = c.isTuple ? [c] : turns(of: c, i, scene, keeping: checked)
            // Its likeliest way may be on offer already, as an earlier candidate's way
            // (`hypothesesOnce`; `bench accuracy --seed 1 --show 99`: a verifying triple's
            // turn within `minHypothesisSeparation` of the first triple's was left out, and
            // its own likeliest way was the first triple: the check held it twice).
            if config.hypothesesOnce, offered.contains(where: { $0.traces == ways[0].traces }) { continue }
            offered.append(ways[0])
            var others: [Candidate] = []
            if let offset {
                var sensors = offered.filter { $0.traceSet == c.traceSet }.map { $0.pose.apply(offset) }
                for alt in ways.dropFirst() {
                    let sensor = alt.pose.apply(offset)
                    guard !sensors.contains(where: { $0.distance(to: sensor) < config.minHypothesisSeparation }) else { continue }
                    guard !offered.contains(where: { $0.traces == alt.traces }) else { continue }
                    sensors.append(sensor)
                    offered.append(alt)
                    others.append(alt)
                }
            }
            groups.append((ways[0], others))
        }
        if config.unlikelyTwinsLeft, let offset { return withoutUnlikelyTwins(groups, i, scene, offset: offset) }
        return groups
    }

    /// Twins: two triples with the same traces on two markers, whose third touches lie close
    /// together (a finger came to rest beside a marker, both within the tolerance), put the
    /// sensor within `minHypothesisSeparation` of each other, so light cannot tell them apart
    /// (`bench accuracy` seed 1 case 7259: inconclusive check after check until the case
    /// ended). The touches' means over the stationary window can: a twin whose fit to them is
    /// `turnLikelihoodRatio` times less likely than the other's is left out (with its turns).
    private func withoutUnlikelyTwins(_ groups: [(lead: Candidate, others: [Candidate])], _ i: Int, _ scene: FrameScene,
                                      offset: Vec2) -> [(lead: Candidate, others: [Candidate])] {
        let triples = groups.indices.filter { !groups[$0].lead.isTuple }
        guard triples.count > 1, config.turnJitter > 0, config.turnLikelihoodRatio > 1 else { return groups }
        var fits: [Int: (sse: Double, samples: Int)] = [:]
        var dropped = Set<Int>()
        for a in triples {
            for b in triples where b > a {
                let x = groups[a].lead, y = groups[b].lead
                guard zip(x.traces, y.traces).filter({ $0 == $1 }).count == 2,
                      x.pose.apply(offset).distance(to: y.pose.apply(offset)) < config.minHypothesisSeparation else { continue }
                if fits[a] == nil { fits[a] = meanFit(x, i, scene) }
                if fits[b] == nil { fits[b] = meanFit(y, i, scene) }
                guard let fa = fits[a], let fb = fits[b] else { continue }
                let sigma = max(config.turnJitter, slots[i].jitter.meanSquare?.squareRoot() ?? 0)
                let variance = sigma * sigma / Double(max(1, min(fa.samples, fb.samples)))
                let bound = 2 * variance * log(config.turnLikelihoodRatio)
                if fb.sse - fa.sse > bound { dropped.insert(b) } else if fa.sse - fb.sse > bound { dropped.insert(a) }
            }
        }
        return dropped.isEmpty ? groups : groups.indices.filter { !dropped.contains($0) }.map { groups[$0] }
    }

    /// A triple's fit to its touches' means over the stationary window (the sum of squared
    /// marker displacements) and the fewest samples of a mean; nil when a touch moved.
    private func meanFit(_ c: Candidate, _ i: Int, _ scene: FrameScene) -> (sse: Double, samples: Int)? {
        guard let (means, samples) = stationaryMeans(c, scene) else { return nil }
        let f = slots[i].pattern.fit(means[0], means[1], means[2])
        return (3 * f.rms * f.rms, samples)
    }

    /// A triple's touches' mean positions over the stationary window (in its marker order)
    /// and the fewest samples of one, if every touch stayed put over it (a moving touch's
    /// mean lags).
    private func stationaryMeans(_ c: Candidate, _ scene: FrameScene) -> ([Vec2], Int)? {
        var means: [Vec2] = []
        var samples = Int.max
        for tr in c.traces {
            guard let tr, table.isStationary(tr, at: scene.now), let m = table.windowMean(tr, at: scene.now) else { return nil }
            means.append(m.position)
            samples = min(samples, m.samples)
        }
        return (means, samples)
    }

    /// The ways (turns) a triple's three traces fit the pattern, the likeliest first: `c`
    /// itself when no other way fits within tolerance on the current positions (a way the
    /// running identify check holds: within tolerance × `deformationSlack`). Otherwise the
    /// ways are judged on the touches' mean positions over the stationary window, whose
    /// error is σ / √samples (`turnJitter`, or the tangible's learned jitter when larger):
    /// a way whose fit to the means is `turnLikelihoodRatio` times less likely than the
    /// best one's is left out. One sample's jitter makes a wrong turn of a near-equilateral
    /// pattern fit best one time in six; the means of a few samples seldom do.
    func turns(of c: Candidate, _ i: Int, _ scene: FrameScene, keeping checked: [Candidate] = []) -> [Candidate] {
        let pattern = slots[i].pattern
        let tol = slots[i].jitter.tolerance(config)
        var q: [Vec2] = []
        for tr in c.traces {
            guard let k = scene.slot[tr!] else { return [c] }
            q.append(scene.positions[k])
        }
        var ways: [Candidate] = [c]
        for perm in TrianglePattern.perms.dropFirst() {
            let f = pattern.fit(q[perm[0]], q[perm[1]], q[perm[2]])
            let traces = perm.map { c.traces[$0] }
            guard f.residual <= tol || (f.residual <= tol * config.deformationSlack && checked.contains { $0.traces == traces })
            else { continue }
            var alt = c
            alt.traces = traces
            alt.pose = f.pose
            alt.residual = f.residual
            ways.append(alt)
        }
        guard ways.count > 1, config.turnJitter > 0, config.turnLikelihoodRatio > 1 else { return ways }
        // The means, if every touch stayed put over the window (a moving touch's mean lags).
        guard let (means, samples) = stationaryMeans(c, scene) else { return ways }
        let sigma = max(config.turnJitter, slots[i].jitter.meanSquare?.squareRoot() ?? 0)
        // A rigid fit of three points leaves 3 degrees of freedom: the sum of squared
        // displacements of the right way is σ²/n · χ²(3); a way's log-likelihood is −SSE / (2σ²/n).
        let variance = sigma * sigma / Double(max(1, samples))
        let sse = ways.map { w -> Double in
            let index = w.traces.map { tr in c.traces.firstIndex(of: tr)! }
            let f = pattern.fit(means[index[0]], means[index[1]], means[index[2]])
            return 3 * f.rms * f.rms
        }
        let best = sse.min()!
        let bound = 2 * variance * log(config.turnLikelihoodRatio)
        return ways.indices.filter { sse[$0] - best <= bound }.sorted { (sse[$0], $0) < (sse[$1], $1) }.map { ways[$0] }
    }

    /// A verifying candidate whose trace ended goes on with the free trace that appeared
    /// where that marker should be (a touch that dropped out and came back as a new trace),
    /// rather than dropping out of the check.
    private func successor(of c: Candidate, _ i: Int, _ scene: FrameScene) -> Candidate {
        var out = c
        for m in 0..<3 {
            guard let tr = c.traces[m] else { continue }
            if let k = scene.slot[tr], scene.alive[k] { continue }
            let gone = table.summary(tr)
            let notBefore = gone?.endedAt ?? gone?.beganAt ?? c.latestBegin
            guard let next = scene.nearestFree(to: c.pose.apply(slots[i].pattern.markers[m]), radius: config.recoveryRadius,
                                               origin: c.origin, owner: slots[i].id, excluding: out.traces.compactMap { $0 },
                                               notBefore: notBefore - 0.1) else { continue }
            out.traces[m] = next
        }
        return out
    }

    /// The free touches lying still that began inside PERC `i`'s time window, or later up to
    /// `lateTouchReach` after its field-on, nearest its field-on first (at most
    /// `maxLoneTouches`): one may be its only marker touch. Only while light can check, no
    /// triple or pair fits, and the PERC is searching. A late one is left, as a late
    /// candidate is (`otherWindowsFirst`), when it began inside another searching PERC's
    /// window, or less than a window ago while a linked PERC's field is off.
    private mutating func loneTouches(_ i: Int, _ scene: inout FrameScene) -> [LoneTouch] {
        guard config.locateLoneTouches, canCheck(i), config.maxLoneTouches > 0,
              slots[i].perc?.stateName == .onSurface, let f = slots[i].perc?.fieldOnAt else { return [] }
        var out: [LoneTouch] = []
        let w = config.timeWindow, late = max(w, config.lateTouchReach)
        let theirs = late > w ? otherWindows(i, at: scene.now) : { _, _ in false }
        for k in scene.ids.indices where scene.alive[k] && !scene.blocked[k] && scene.holder[k] == nil {
            let d = scene.began[k] - f
            guard d >= -w && d <= late, scene.isStationary(k, table: table) else { continue }
            if d > w, theirs(scene.began[k], scene.began[k]) { continue }
            out.append(LoneTouch(trace: scene.ids[k], position: table.windowMean(scene.ids[k], at: scene.now)?.position ?? scene.positions[k],
                                 began: scene.began[k],
                                 origin: scene.origins[scene.originIndex[k]]))
        }
        out.sort { (abs($0.began - f), $0.trace) < (abs($1.began - f), $1.trace) }
        // (With `rejectedTriplesLast` the PERC picks `maxLoneTouches` of them.)
        return Array(out.prefix(config.rejectedTriplesLast ? 8 : min(config.maxLoneTouches, 8)))
    }

    /// Free touches that could be the one marker a placed PERC stands on instead of its touch:
    /// as far from its sensor as one of its markers is (within `tolerance`), and not as far from
    /// its touch as two of its markers are from each other (a second marker of its own); with
    /// `placedRivalsInWindow`, not touches that began before the field-on's time window, and
    /// with `placedRivalsUnsearched`, not touches the locate that placed it searched.
    private func placedRivals(_ i: Int, _ p: Placement, at touch: Vec2, tolerance: Double, _ scene: FrameScene) -> Int {
        let d = slots[i].definition
        guard let offset = d.lightSensorOffset else { return 0 }
        let sensor = p.sensor + (touch - p.touchPosition)
        let reach = d.markers.map { $0.distance(to: offset) }
        var sides: [Double] = []
        for a in d.markers.indices { for b in d.markers.indices where b > a { sides.append(d.markers[a].distance(to: d.markers[b])) } }
        let fieldOn = config.placedRivalsInWindow ? slots[i].perc?.fieldOnAt : nil
        let searched = config.placedRivalsUnsearched ? (slots[i].perc?.placementSearched ?? []) : []
        var n = 0
        for k in scene.ids.indices where scene.alive[k] && scene.holder[k] == nil && scene.ids[k] != p.touch {
            if let f = fieldOn, scene.began[k] < f - config.timeWindow { continue }
            if searched.contains(scene.ids[k]) { continue }
            let q = scene.positions[k]
            let s = q.distance(to: sensor), t = q.distance(to: touch)
            if reach.contains(where: { abs($0 - s) <= tolerance }) && !sides.contains(where: { abs($0 - t) <= tolerance }) { n += 1 }
        }
        return n
    }

    /// What one frame's search shares between the searching tangibles: who searches and how,
    /// the candidates found once per pattern group (with the loosest tolerance of the tangibles
    /// that share it, then filtered per tangible), the window triples and the traces more than
    /// one window could take.
    private struct SearchRound {
        var wants: [(Int, Want)] = []
        /// Tangibles whose held traces stay open to the matcher (a pending window guess, a placed touch).
        var pendingGuessers: Set<TangibleID> = []
        var tolByGroup: [Double]
        var triplesByGroup: [[Candidate]?]
        var tuplesByGroup: [[Candidate]?]
        /// Linked PERCs whose field is off (`awaitedTriples`).
        var announcers: [Int] = []
        var windowTriples: [TangibleID: [Candidate]] = [:]
        var claimants: [TraceID: Set<TangibleID>] = [:]
        /// The triples each searching PERC weighs (window triples, verifying candidates), for
        /// `pairsYieldToOthersTriples`.
        var weighedTriples: [(owner: TangibleID, traces: [TraceID])] = []

        init(groups: Int) {
            tolByGroup = Array(repeating: 0, count: groups)
            triplesByGroup = Array(repeating: nil, count: groups)
            tuplesByGroup = Array(repeating: nil, count: groups)
        }

        /// Whether pair `c`'s touches all lie in one triple another PERC than `id` weighs.
        func inOthersTriple(_ c: Candidate, than id: TangibleID) -> Bool {
            weighedTriples.contains { t in t.owner != id && c.traces.allSatisfy { $0.map(t.traces.contains) ?? true } }
        }
    }

    private mutating func triples(_ i: Int, _ r: inout SearchRound, _ scene: inout FrameScene) -> [Candidate] {
        found(i, \.triplesByGroup, &r, &scene) { f, p, tol, scene, table in f.triples(p, tolerance: tol, scene: &scene, table: table) }
    }

    private mutating func tuples(_ i: Int, _ r: inout SearchRound, _ scene: inout FrameScene) -> [Candidate] {
        found(i, \.tuplesByGroup, &r, &scene) { f, p, tol, scene, table in f.tuples(p, tolerance: tol, scene: &scene, table: table) }
    }

    /// Tangible `i`'s pattern group's candidates of one kind, found once per frame.
    private mutating func found(_ i: Int, _ cache: WritableKeyPath<SearchRound, [[Candidate]?]>, _ r: inout SearchRound,
                                _ scene: inout FrameScene,
                                _ find: (CandidateFinder, TrianglePattern, Double, inout FrameScene, TraceTable) -> [Candidate]) -> [Candidate] {
        let g = slots[i].group
        if let c = r[keyPath: cache][g] { return c }
        let c = find(finder, slots[i].pattern, r.tolByGroup[g], &scene, table)
        r[keyPath: cache][g] = c
        return c
    }

    /// Fits within `tolerance` on traces nobody but `id` holds.
    private static func isOpen(_ c: Candidate, to id: TangibleID, tolerance: Double, _ scene: FrameScene) -> Bool {
        c.residual <= tolerance && c.traces.allSatisfy { tr in
            guard let tr else { return true }
            let h = scene.holder(of: tr)
            return h == nil || h == id
        }
    }

    mutating func search(_ scene: inout FrameScene, emit: ([TangibleEvent], TangibleID) -> Void) {
        var r = SearchRound(groups: groupCount)
        for i in slots.indices {
            guard let w = want(i) else { continue }
            r.wants.append((i, w))
        }
        guard !r.wants.isEmpty else { return }

        // Traces held for good (not a pending window guess) are never combined by the matcher.
        // (A placed PERC's touch neither: a second marker touch must pair with it.)
        for i in slots.indices where slots[i].perc?.hasPendingGuess == true || slots[i].perc?.placement != nil {
            r.pendingGuessers.insert(slots[i].id)
        }
        for i in scene.ids.indices {
            if let h = scene.holder[i], !r.pendingGuessers.contains(h) { scene.blocked[i] = true }
        }
        // (Ended traces are blocked from the start.)
        for (i, _) in r.wants { r.tolByGroup[slots[i].group] = max(r.tolByGroup[slots[i].group], slots[i].jitter.tolerance(config)) }
        // (Only a tangible in its time window asks; most frames have none.)
        if config.awaitUnannounced, r.wants.contains(where: { if case .perc(.window) = $0.1 { true } else { false } }) {
            for j in slots.indices where slots[j].perc?.state == .inRange { r.announcers.append(j) }
        }

        // Window triples, and which traces more than one window-phase tangible could take.
        for (i, w) in r.wants {
            guard case .perc(.window(let f)) = w else { continue }
            let id = slots[i].id
            let tol = slots[i].jitter.tolerance(config)
            let pending = r.pendingGuessers
            let list = triples(i, &r, &scene).filter { c in
                c.residual <= tol && c.earliestBegin >= f - config.timeWindow && c.latestBegin <= f + config.timeWindow
                    && c.traces.allSatisfy { tr in
                        guard let h = scene.holder(of: tr!) else { return true }
                        return h == id || pending.contains(h)
                    }
            }
            r.windowTriples[id] = list
            for c in list { for tr in c.traceSet { r.claimants[tr, default: []].insert(id) } }
        }
        if config.pairsYieldToOthersTriples {
            for (i, _) in r.wants {
                let id = slots[i].id
                for c in r.windowTriples[id] ?? [] { r.weighedTriples.append((id, c.traceSet)) }
                for c in slots[i].perc?.verifyingCandidates ?? [] where !c.isTuple { r.weighedTriples.append((id, c.traceSet)) }
            }
        }

        for (i, w) in r.wants {
            let id = slots[i].id
            let tol = slots[i].jitter.tolerance(config)
            var obs = SearchObservation()
            obs.canCheck = canCheck(i)
            if let p = slots[i].perc?.placement, let k = scene.slot[p.touch], scene.alive[k], scene.holder[k] == id {
                obs.placedTouch = scene.positions[k]
                obs.placedRivals = placedRivals(i, p, at: scene.positions[k], tolerance: tol, scene)
            }
            switch w {
            case .perc(.window(let f)):
                observeWindow(i, fieldOnAt: f, &obs, &r, &scene)
            case .perc(.everything):
                observeAll(i, &obs, &r, &scene)
            case .perc(.nearPose(let pose, let origin, let provenance, let since)):
                let maintainer = TrackMaintainer(config: config, pattern: slots[i].pattern, tolerance: tol, owner: id)
                obs.nearPose = maintainer.recover(around: pose, origin: origin, provenance: provenance, since: since,
                                                  scene: scene, table: table)
            case .perc(.stillness(let held)):
                obs.trackIsStill = held.allSatisfy { tr in scene.slot[tr].map { scene.isStationary($0, table: table) } ?? false }
            case .puc:
                obs.triples = triples(i, &r, &scene).filter { Self.isOpen($0, to: id, tolerance: tol, scene) }
            }
            let before = slots[i].held
            if slots[i].perc != nil {
                var acts = slots[i].perc!.handle(.search(obs), at: scene.now)
                // The window may have expired into lightOnly in this very event: search again
                // so the phase change and its first light check happen in the same frame.
                if case .perc(.window) = w, slots[i].perc!.searchPhase == .lightOnly {
                    var again = SearchObservation()
                    again.canCheck = obs.canCheck
                    again.placedTouch = obs.placedTouch
                    again.placedRivals = obs.placedRivals
                    observeAll(i, &again, &r, &scene)
                    acts += slots[i].perc!.handle(.search(again), at: scene.now)
                }
                emit(acts, id)
            } else {
                emit(slots[i].puc!.handle(.search(obs), at: scene.now), id)
            }
            sync(&scene, id, before, slots[i].held)
        }
    }

    /// A PERC searching in `lightOnly`: every open triple (with its other turns), tuple and
    /// lone touch.
    private mutating func observeAll(_ i: Int, _ obs: inout SearchObservation, _ r: inout SearchRound, _ scene: inout FrameScene) {
        let id = slots[i].id
        let tol = slots[i].jitter.tolerance(config)
        let theirs = otherWindows(i, at: scene.now)
        obs.triples = withAlternatives(triples(i, &r, &scene).filter {
            Self.isOpen($0, to: id, tolerance: tol, scene) && !theirs($0.earliestBegin, $0.latestBegin)
        }, i, scene)
        obs.tuples = tuples(i, &r, &scene).filter {
            Self.isOpen($0, to: id, tolerance: tol, scene) && !theirs($0.earliestBegin, $0.latestBegin) && !r.inOthersTriple($0, than: id)
        }
        obs.loneTouches = loneTouches(i, &scene)
    }

    /// Whether a candidate's touches all began inside the time window of another PERC that is
    /// searching on the surface, and not all inside PERC `i`'s own (`otherWindowsFirst`): set
    /// down then, they are that PERC's markers (a pair of them may fit a side of `i`'s pattern
    /// too) or fingers, not `i`'s. So are touches all younger than a time window while a
    /// linked PERC has its field off: its field-on may be on its way (the markers touch up to
    /// a window before it). The other PERCs are looked at once, not per candidate.
    /// (The test takes when a candidate's touches began: the earliest and the latest.)
    private func otherWindows(_ i: Int, at now: Seconds) -> (Seconds, Seconds) -> Bool {
        guard config.otherWindowsFirst, let f = slots[i].perc?.fieldOnAt else { return { _, _ in false } }
        let (fieldOns, linkedOff) = otherPercs(than: i)
        let w = config.timeWindow
        return { earliest, latest in
            func inWindow(of g: Seconds) -> Bool { earliest >= g - w && latest <= g + w }
            guard !inWindow(of: f) else { return false }
            return (linkedOff && earliest > now - w) || fieldOns.contains(where: inWindow)
        }
    }

    /// The other PERCs than `i` that may be set down beside it: the field-ons of those
    /// searching on the surface, and whether one is linked with its field off.
    private func otherPercs(than i: Int) -> (searchingFieldOns: [Seconds], linkedOff: Bool) {
        var fieldOns: [Seconds] = []
        var linkedOff = false
        for j in slots.indices where j != i {
            guard let m = slots[j].perc else { continue }
            if m.stateName == .inRange { linkedOff = true }
            if m.stateName == .onSurface, let g = m.fieldOnAt { fieldOns.append(g) }
        }
        return (fieldOns, linkedOff)
    }

    /// A PERC inside its time window (opened by its field-on at `f`): its window triples and
    /// their other turns, which of them others could take or announce, and at the window's end
    /// (or early, while no triple fits) the window's traces, pairs and lone touches; while it
    /// verifies, its verifying candidates refitted.
    private mutating func observeWindow(_ i: Int, fieldOnAt f: Seconds, _ obs: inout SearchObservation,
                                        _ r: inout SearchRound, _ scene: inout FrameScene) {
        let id = slots[i].id
        let tol = slots[i].jitter.tolerance(config)
        // Traces taken earlier in this loop by a tangible that is not guessing are gone.
        // Each in its likeliest turn, and its other turns (offered only to light, or
        // without light to wait for the means to tell them apart).
        let pending = r.pendingGuessers
        let groups = turnGroups((r.windowTriples[id] ?? []).filter { c in
            c.traces.allSatisfy { tr in
                guard let h = scene.holder(of: tr!) else { return true }
                return h == id || pending.contains(h) || index[h].map { slots[$0].perc?.hasPendingGuess == true } == true
            }
        }, i, scene)
        obs.windowTriples = groups.map(\.lead)
        if obs.canCheck || config.turnJitter > 0 { obs.windowAlternatives = groups.flatMap(\.others) }
        for c in obs.windowTriples {
            let rivals = Set(c.traceSet.flatMap { r.claimants[$0] ?? [] }).subtracting([id])
            guard !rivals.isEmpty else { continue }
            // (Not while a rival holds it as its pending guess: it decides at its window's end.)
            let free = c.traceSet.allSatisfy { scene.holder(of: $0).map { $0 == id } ?? true }
            if !obs.canCheck, free, ownsByTiming(c, i, against: rivals.compactMap { index[$0] }) { continue }
            obs.contested.insert(c.traceSet)
        }
        obs.awaited = awaitedTriples(obs.windowTriples, i, announcers: r.announcers, scene)
        // (Counting only PERCs with a side as long as one of `i`'s changed no figure of
        // `bench accuracy` seeds 1 and 7.)
        let others = otherPercs(than: i)
        obs.besideOtherPercs = others.linkedOff || !others.searchingFieldOns.isEmpty
        if scene.now >= f + config.timeWindow
            || (obs.windowTriples.isEmpty && obs.canCheck && scene.now >= f + config.pairCheckAfter(besideOtherPercs: obs.besideOtherPercs)) {
            // At the window's end: pairs of window traces outside every window triple.
            // Inside the window too, after `EngineConfig.pairCheckAfter`, while no triple
            // fits: the PERC machine checks such pairs by light before the window's end.
            let inTriples = Set(obs.windowTriples.flatMap(\.traceSet))
            for k in scene.ids.indices where !scene.blocked[k] && scene.began[k] >= f - config.timeWindow
                && scene.began[k] <= f + config.timeWindow && (scene.holder[k] == nil || scene.holder[k] == id) {
                obs.windowTraces.insert(scene.ids[k])
            }
            obs.windowTuples = tuples(i, &r, &scene).filter { c in
                Self.isOpen(c, to: id, tolerance: tol, scene) && c.earliestBegin >= f - config.timeWindow && c.latestBegin <= f + config.timeWindow
                    && !c.traceSet.allSatisfy { inTriples.contains($0) } && !r.inOthersTriple(c, than: id)
            }
            // No triple and no pair: the PERC may have made one touch; light can look
            // for its sensor around the lone touches before the window ends too.
            if obs.windowTriples.isEmpty, obs.windowTuples.isEmpty { obs.loneTouches = loneTouches(i, &scene) }
        }
        guard let m = slots[i].perc, m.searchPhase == .verifying else { return }
        obs.verifying = withAlternatives(m.verifyingCandidates.compactMap { c in
            refitted(successor(of: c, i, scene), i, scene: scene)
        }, i, scene)
        // A triple another searching tangible could take too is no sole survivor
        // to take unchecked (two PERCs set down together: one took the other's).
        // With no light check possible every verifying triple is a guess to take,
        // so each is checked for rivals; a rival loses by timing (`ownsByTiming`).
        obs.awaited.formUnion(awaitedTriples(obs.verifying, i, announcers: r.announcers, scene))
        for c in obs.verifying where !c.isTuple && (obs.verifying.count == 1 || !obs.canCheck) {
            let set = c.traceSet
            var rivals: [Int] = []
            for (j, wj) in r.wants where j != i {
                if case .perc(.nearPose) = wj { continue }
                if triples(j, &r, &scene).contains(where: { $0.traceSet == set }) { rivals.append(j) }
            }
            guard !rivals.isEmpty else { continue }
            if !obs.canCheck, ownsByTiming(c, i, against: rivals) { continue }
            obs.contested.insert(set)
        }
    }
}
