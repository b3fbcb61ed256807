// The engine's settings, with documented defaults; the service's TOML `[engine]` maps onto it.

/// Settings of `Engine`. Decoding a partial object keeps the defaults for absent keys, so a
/// config file names only what it changes. Distances in millimetres, times in seconds.
public struct EngineConfig: Hashable, Sendable, Codable {
    /// Trace memory bounds and stationary analysis (thesis 3.2.1).
    public var traces = TraceSettings()
    /// Half-width of the field-on time window: traces that began within ± this of the
    /// field-on frame are window traces, and the window guess is decided at field-on + this
    /// (thesis: 200 ms; the PERC paper: 99% of marker touches within 150 ms).
    public var timeWindow: Seconds = 0.2
    /// Matching tolerance before a tangible's jitter is known: the largest marker
    /// displacement of a rigid fit that still counts as fitting.
    public var tolerance: Double = 3.0
    /// Learn each tangible's tolerance from the fit residuals while it is tracked
    /// (tolerance = jitterFactor × RMS residual, clamped to [minTolerance, maxTolerance]).
    public var adaptTolerance = true
    public var minTolerance: Double = 1.5
    public var maxTolerance: Double = 6.0
    public var jitterFactor: Double = 4.0
    /// Weight of one new residual in the running mean square (exponential smoothing).
    public var jitterSmoothing: Double = 0.02
    /// Deformation check: a held set is deformed when its fit is off by more than
    /// tolerance × this (slack, so one noisy frame does not drop a marker).
    public var deformationSlack: Double = 1.5
    /// A new triple must have fitted at `historySamples` past instants spread over this much
    /// of its shared history, each within tolerance × `historySlack`.
    public var historyWindow: Seconds = 0.5
    public var historySamples: Int = 5
    public var historySlack: Double = 1.5
    /// Recovery looks for replacement traces this close to a missing marker's expected
    /// position (thesis 3.3.1 Recovery).
    public var recoveryRadius: Double = 10
    /// A tangible's last trace is dropped when it is this far from where its marker should be.
    public var driftLimit: Double = 12
    /// Resting: time between passing stationary checks, the delay before retrying after a
    /// failed or inconclusive one, and the failures in a row that send it back to onSurface.
    /// The first stationary check waits this long after the traces are lost: a lift ends
    /// the touches up to the field sensor delay plus a connection interval before its
    /// field-off arrives (about 150 + 30 ms on the reference hardware).
    public var restingGrace: Seconds = 0.25
    /// How long an identify check waits when a marker touch drops out (a flicker) and with it
    /// every candidate: the touch comes back as a new trace a few frames later and the check
    /// goes on with it (HARDWARE-MODEL: drop-outs of 1–10 touch samples).
    public var dropoutGrace: Seconds = 0.2
    public var stationaryCheckInterval: Seconds = 2.0
    public var stationaryRetryDelay: Seconds = 0.25
    public var stationaryFailureLimit: Int = 3
    /// At most this many hypotheses in one identify need (best first: triples, stationary,
    /// began nearest the field-on).
    public var maxHypotheses: Int = 8
    /// A tuple hypothesis whose light-sensor position is closer than this (mm) to a triple
    /// hypothesis's cannot be told apart from it by light; it is left out.
    public var minHypothesisSeparation: Double = 8
    /// A candidate a light check rejected is not offered again for this long.
    public var recheckRejectedAfter: Seconds = 2.0
    /// When only moving candidates exist, ask for checks anyway with their velocity so the
    /// scheduler can draw at the predicted position (the thesis never checked moving ones).
    public var checkMovingWithPrediction = true
    /// Inside the time window, when no triple fits but pairs of window traces do (a marker
    /// that did not register, HARDWARE-MODEL), light is asked about the pairs this long
    /// after the field-on instead of at the window's end. A third touch that comes later in
    /// the window still makes a triple the thesis's window guess (the pair's check is
    /// withdrawn), so a pair need not wait out the markers' onset spread: 0.02 s (0.12 s
    /// until 2026-12-02; with `crowdedPairCheckAfter`, on the model's 60 Hz table the p95 of
    /// field-on → recognised went 400 → 374 ms, seed 1, docs/recognition.md). Recordings
    /// made before this setting existed read it as "never" (`Self.never`), so they replay as
    /// they ran.
    public var earlyPairCheckAfter: Seconds = 0.02
    /// `earlyPairCheckAfter` while another PERC is searching or linked with its field off
    /// (it may be set down beside this one): its touches make pairs with this one's, and the
    /// rules that keep two PERCs off each other's places (`awaitUnannounced`, contested
    /// triples) judge triples, so a pair asked about at once was light-confirmed on a
    /// sibling's place (`bench crowded`, seed 19: 811 swapped tangible-frames with pairs at
    /// 0.02 s in every case). Recordings made before this setting existed read it as
    /// `earlyPairCheckAfter` (one setting then).
    public var crowdedPairCheckAfter: Seconds = 0.12
    /// Inside the time window, when no triple or pair fits (one touch so far), the sensor
    /// is searched around the lone touches this long after the field-on. It waits out most
    /// of the markers' onset spread (99% within ±150 ms of the field-on): a locate started
    /// before a second touch comes is withdrawn for the pair, and the sensor may still be
    /// answering its large discs for a round, which voids the pair's first answers (asking
    /// at 0.04 s with the pairs cost seed 1 p95 402 ms and twice the voided rounds).
    /// Recordings made before this setting existed read it as `earlyPairCheckAfter` (one
    /// setting for both then), so they replay as they ran.
    public var earlyLocateAfter: Seconds = 0.12
    /// A PERC that made only one marker touch (HARDWARE-MODEL: 3.2% of placements) is found
    /// by light: after its time window, when no triple or pair is left to check, its light
    /// sensor is searched on the circles around the lone touches that began in the window
    /// (`VerificationNeed.Kind.locate`). Recordings made before this setting existed read
    /// it as off, so they replay as they ran.
    public var locateLoneTouches = true
    /// Turn step (degrees) of the poses offered around a lone touch (not below 0.5°).
    public var locateTurnStep: Double = 2
    /// At most this many lone touches searched at once (began nearest the field-on first;
    /// not above 8).
    public var maxLoneTouches: Int = 3
    /// Touches of a triple light rejected come last among the lone touches searched, and
    /// pairs made only of such touches wait while other lone touches are searched: a finger
    /// triangle in the PERC's pattern set down in its window took the three places, and its
    /// pairs were checked first, while the PERC's one marker touch waited (`bench accuracy`
    /// seed 1 case 343). Recordings made before this setting existed read it as off.
    public var rejectedTriplesLast = true
    /// While a locate of a PERC's lone touches runs, a pair that has one of them and whose
    /// touches had both begun when the locate could first start (`earlyLocateAfter` after
    /// the field-on; no pair fitted then, so the PERC's sensor was searched) waits instead of
    /// taking the sensor: the locate's poses include the pair's. Such pairs (a finger that came
    /// to rest a side's length from the marker touch) took ~600 ms of checks each, and
    /// `bench accuracy` seed 1 case 388 went locate, pair, locate, pair and was never found. A
    /// pair with a touch that began later (a second marker arriving late) is checked at once.
    /// Recordings made before this setting existed read it as off.
    public var pairsWaitForLocate = true
    /// A pair whose identify check was withdrawn because it stopped being offered (at the
    /// edge of the side length's tolerance: offered one frame, gone for the next hundreds of
    /// ms) no longer takes the sensor from a running locate that searches one of its touches:
    /// its poses are among the locate's. Before, each time it came back it replaced the
    /// locate, and left again before its check could end (`bench accuracy --seed 7 --show
    /// 6856`: locate, pair, locate, pair … and never found). Recordings made before this
    /// setting existed read it as off.
    public var flappingPairsWait = true
    /// A pair with a touch that began after the PERC's time window waits for a running locate
    /// that searches its other touch (the locate's poses include the pair's): a marker touching
    /// that late is the hardware's 1% tail, a finger is likelier. Before, a finger put down
    /// 21.5 mm from a marker 211 ms after the field-on made a pair with the PERC's one marker
    /// touch; it replaced the locate, and light confirmed it, the pair's sensor position 3.4 mm
    /// from the true one (`bench accuracy --seed 6 --show 999`: reported on the finger's
    /// trace). Recordings made before this setting existed read it as off.
    public var latePairsWait = true
    /// A pair of touches that lie in a triple another PERC is weighing (its window triple or
    /// a candidate it verifies) is not offered while that PERC searches: the triple fits that
    /// PERC with all three touches, the pair this one with two and a finger exactly where a
    /// marker of the other would touch. Before, the pairs of another PERC's triple took this
    /// PERC's sensor for their checks, and the two checks held each other's patches back
    /// while this PERC's own lone touch waited (`bench accuracy --seed 2 --show 193`: the
    /// pairs' check ran 1.46 s and the locate of its touch never ended). Recordings made
    /// before this setting existed read it as off.
    public var pairsYieldToOthersTriples = true
    /// A candidate light confirmed is taken only while its traces still fit it (within the
    /// deformation limit, as a verifying candidate must): else the track would release them as
    /// deformed in the same step and the PERC rest on a pose no touch holds. A pair asked about
    /// on the first samples of its second touch (`earlyPairCheckAfter`) can drift out of its
    /// side's length while light checks it (`bench accuracy --seed 7 --show 5807`, ended
    /// resting). The answer is dropped; the next need offers what fits then. Recordings made
    /// before this setting existed read it as off.
    public var confirmedMustFit = true
    /// A candidate refitted to its traces' current positions (a verifying candidate, one light
    /// confirmed) says whether it moves now, not when it was first found: a window triple
    /// found on its touches' first samples was "moving" for good, and a check left it out for
    /// any still candidate (`bench accuracy --seed 2 --show 9186`, serve timing: the PERC's own
    /// triple left out for 0.37 s while light checked a pair of its marker and a finger, and
    /// confirmed that pair). Recordings made before this setting existed read it as off.
    public var refitMotion = true
    /// A located pose is taken only when no pose with another marker (or another touch) on
    /// its touch puts the sensor within this distance (mm): light cannot tell such poses
    /// apart (the standard pattern's sensor is 18.0 mm from both marker 0 and marker 1).
    public var locateAmbiguity: Double = 2
    /// σ per axis (mm) of one touch sample of a marker. A nearly symmetric pattern (a
    /// near-equilateral one) fits its three touches in more than one turn, and one sample's
    /// jitter often makes a wrong turn fit best. The touches' mean positions over the
    /// stationary window (σ / √samples) tell the turns apart: a turn whose fit to the means
    /// is `turnLikelihoodRatio` times less likely than the best one's is not offered, and the
    /// best one leads. A tangible's learned jitter is used when it is larger. 0 = off (one
    /// sample decides, every turn within tolerance is offered); recordings made before it
    /// existed read it as off.
    public var turnJitter: Double = 0.7
    public var turnLikelihoodRatio: Double = 1000
    /// Of two triples with the same traces on two markers whose sensor positions light
    /// cannot tell apart (`minHypothesisSeparation`), one that fits its touches' means
    /// `turnLikelihoodRatio` times less likely than the other is not offered (a finger that
    /// came to rest beside a marker). Recordings made before this setting existed read it as off.
    public var unlikelyTwinsLeft = true
    /// Of hypotheses light cannot tell apart (sensor positions within
    /// `minHypothesisSeparation`), one with a touch that began before the field-on's time
    /// window is not offered when one whose touches all began in it is (a marker touches
    /// within the window, so that touch is a finger lying where a marker would be).
    /// Recordings made before this setting existed read it as off.
    public var oldTouchNotAMarker = true
    /// A free touch that began before the field-on's time window (`timeWindow` before it) does
    /// not contest a PERC placed with its orientation unresolved: a marker touches no earlier
    /// than that, so that touch is not the marker the PERC stands on. (A later touch still
    /// does: a marker may touch late, `bench accuracy` seed 7 case 3485.) Before, a finger
    /// lying since long before the field-on withdrew a placement the frame after it was made
    /// (seed 1 case 1008). Recordings made before this setting existed read it as off.
    public var placedRivalsInWindow = true
    /// Nor does a touch the locate that placed the PERC searched: light found the sensor off
    /// every pose on that touch (a pose there within `locateAmbiguity` of it would have made
    /// the locate ambiguous across touches, and nothing would have been placed). Before, a
    /// finger that began inside the window withdrew such a placement 9 ms after it was made
    /// (`bench accuracy` seed 1 case 678). Recordings made before this setting existed read
    /// it as off.
    public var placedRivalsUnsearched = true
    /// Inside the time window, when more than one triple fits (a finger triangle in the
    /// pattern, a second PERC's markers), the window guess cannot stand at the window's end:
    /// light is asked at once, and a pending guess is withdrawn then, not at the window's end.
    /// Triples that form later in the window join the check. Recordings made before this
    /// setting existed read it as off, so they replay as they ran.
    public var checkRivalsInWindow = true
    /// A locate check whose poses all stand on the one touch (another marker of the PERC on
    /// it, each putting the sensor within `locateAmbiguity`) reports the PERC `placed`: the
    /// touch and the sensor are known, its orientation is not (docs/perc-state-machine.md,
    /// "Placed"). Off: none is taken and the PERC stays `onSurface` until a second marker
    /// touches. Recordings made before this setting existed read it as off.
    public var reportUnresolvedPlacements = true
    /// While a linked PERC whose pattern fits a window triple has its field off, it may be
    /// the one set down there, its field-on yet to come: when light can check, no guess is
    /// taken on such a triple until its first touch began `timeWindow` ago; light is asked at
    /// once instead (docs/perc-state-machine.md, "Window guess"). Recordings made before
    /// this setting existed read it as off.
    public var awaitUnannounced = true
    /// An identify check offers each candidate (traces on markers) once. A sole window triple
    /// and its other turns (`windowAlternatives`) could both hold the same assignment; the
    /// check then had two hypotheses at one sensor position, which light cannot tell apart,
    /// and it ended inconclusive once they held the weight, to start again without its
    /// answers (`bench accuracy` seed 1 case 99: twice, recognised 0.47 s after the field-on
    /// instead of 0.29 s). The twin came from the turn groups: a candidate whose likeliest
    /// way was an earlier candidate's way led its group with it; such a candidate is now not
    /// offered again, and the request keeps the best of each assignment. Recordings made
    /// before this setting existed read it as off.
    public var hypothesesOnce = true
    /// A PERC searching after its time window (`lightOnly`) leaves a triple or pair whose
    /// touches all began inside the time window of another PERC that is searching too, and
    /// not all inside its own (set down then, they are the other PERC's to check), and one
    /// whose touches all began less than `timeWindow` ago while a linked PERC's field is off
    /// (its field-on may be on its way). Before, a PERC on one touch among the crowd asked
    /// light about newly set-down PERCs' triples and pairs, and its patches kept their own
    /// checks waiting (`bench crowded --seeds 1`: PERC 7 tracked 5.2 s after its field-on,
    /// now 0.25 s). Recordings made before this setting existed read it as off.
    public var otherWindowsFirst = true
    /// When an identify check has more candidates than `maxHypotheses`, those whose touches
    /// all began inside the field-on's time window (or after it) go first: a touch that began
    /// before the window is a finger lying there, not a marker of a PERC set down since.
    /// Before, the candidates were cut best fit first, and a PERC's own pair could be the one
    /// left out, frame after frame (`bench accuracy --seed 2 --show 1003`: pairs with a finger
    /// down 0.63 s before the field-on fitted better; the PERC's own pair was offered in one
    /// frame of six, and its checks ended inconclusive). Recordings made before this setting
    /// existed read it as off.
    public var windowTouchesFirst = true
    /// How long after its field-on a searching PERC's only marker touch may have begun: a
    /// lone touch that began this late (past `timeWindow`) is searched for its sensor too,
    /// once no lone touch inside the window is left (docs/recognition.md, "A marker touch
    /// after the window").
    /// HARDWARE-MODEL: 99% of marker touches come within ±150 ms of the field-on, the rest up
    /// to 400 ms late; a PERC whose one touch came after its window was never found
    /// (`bench accuracy --seed 7`: 6 of its 41 misses, e.g. case 5344, touch 0.38 s late).
    /// Recordings made before this setting existed read it as 0 (the window only).
    public var lateTouchReach: Seconds = 0.4
    /// A sole window triple whose fit is worse than this (largest marker displacement, mm) is
    /// no window guess while light can check it: it is asked at once. Two marker touches and a
    /// finger that fits the pattern in another assignment fit worse than the PERC's own three
    /// (`bench accuracy --seed 3` and `--seed 6`: the nine window guesses on a finger fitted
    /// 1.6–3.0 mm, 99% of the right ones within 1.8 mm, 0.3% over 2.0 mm). Recordings made
    /// before this setting existed read it as `never` (no limit).
    public var guessMaxResidual: Double = 2.0
    /// How long after the field-on pairs of window traces are asked about while no triple
    /// fits: `earlyPairCheckAfter`, or the later `crowdedPairCheckAfter` beside other PERCs
    /// that may be set down (`SearchObservation.besideOtherPercs`).
    public func pairCheckAfter(besideOtherPercs: Bool) -> Seconds {
        besideOtherPercs ? max(earlyPairCheckAfter, crowdedPairCheckAfter) : earlyPairCheckAfter
    }

    /// `earlyPairCheckAfter` for "only at the window's end" (finite, so it encodes as JSON).
    public static let never: Seconds = .greatestFiniteMagnitude

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = EngineConfig()
        func v<T: Decodable>(_ k: CodingKeys, _ def: T) throws -> T { try c.decodeIfPresent(T.self, forKey: k) ?? def }
        traces = try v(.traces, d.traces)
        timeWindow = try v(.timeWindow, d.timeWindow)
        tolerance = try v(.tolerance, d.tolerance)
        adaptTolerance = try v(.adaptTolerance, d.adaptTolerance)
        minTolerance = try v(.minTolerance, d.minTolerance)
        maxTolerance = try v(.maxTolerance, d.maxTolerance)
        jitterFactor = try v(.jitterFactor, d.jitterFactor)
        jitterSmoothing = try v(.jitterSmoothing, d.jitterSmoothing)
        deformationSlack = try v(.deformationSlack, d.deformationSlack)
        historyWindow = try v(.historyWindow, d.historyWindow)
        historySamples = try v(.historySamples, d.historySamples)
        historySlack = try v(.historySlack, d.historySlack)
        recoveryRadius = try v(.recoveryRadius, d.recoveryRadius)
        driftLimit = try v(.driftLimit, d.driftLimit)
        restingGrace = try v(.restingGrace, d.restingGrace)
        dropoutGrace = try v(.dropoutGrace, d.dropoutGrace)
        stationaryCheckInterval = try v(.stationaryCheckInterval, d.stationaryCheckInterval)
        stationaryRetryDelay = try v(.stationaryRetryDelay, d.stationaryRetryDelay)
        stationaryFailureLimit = try v(.stationaryFailureLimit, d.stationaryFailureLimit)
        maxHypotheses = try v(.maxHypotheses, d.maxHypotheses)
        minHypothesisSeparation = try v(.minHypothesisSeparation, d.minHypothesisSeparation)
        recheckRejectedAfter = try v(.recheckRejectedAfter, d.recheckRejectedAfter)
        checkMovingWithPrediction = try v(.checkMovingWithPrediction, d.checkMovingWithPrediction)
        earlyPairCheckAfter = try v(.earlyPairCheckAfter, Self.never)
        earlyLocateAfter = try v(.earlyLocateAfter, earlyPairCheckAfter)
        crowdedPairCheckAfter = try v(.crowdedPairCheckAfter, earlyPairCheckAfter)
        locateLoneTouches = try v(.locateLoneTouches, false)
        locateTurnStep = try v(.locateTurnStep, d.locateTurnStep)
        maxLoneTouches = try v(.maxLoneTouches, d.maxLoneTouches)
        rejectedTriplesLast = try v(.rejectedTriplesLast, false)
        pairsWaitForLocate = try v(.pairsWaitForLocate, false)
        flappingPairsWait = try v(.flappingPairsWait, false)
        latePairsWait = try v(.latePairsWait, false)
        pairsYieldToOthersTriples = try v(.pairsYieldToOthersTriples, false)
        confirmedMustFit = try v(.confirmedMustFit, false)
        refitMotion = try v(.refitMotion, false)
        locateAmbiguity = try v(.locateAmbiguity, d.locateAmbiguity)
        turnJitter = try v(.turnJitter, 0)
        turnLikelihoodRatio = try v(.turnLikelihoodRatio, d.turnLikelihoodRatio)
        unlikelyTwinsLeft = try v(.unlikelyTwinsLeft, false)
        oldTouchNotAMarker = try v(.oldTouchNotAMarker, false)
        placedRivalsInWindow = try v(.placedRivalsInWindow, false)
        placedRivalsUnsearched = try v(.placedRivalsUnsearched, false)
        checkRivalsInWindow = try v(.checkRivalsInWindow, false)
        reportUnresolvedPlacements = try v(.reportUnresolvedPlacements, false)
        awaitUnannounced = try v(.awaitUnannounced, false)
        hypothesesOnce = try v(.hypothesesOnce, false)
        otherWindowsFirst = try v(.otherWindowsFirst, false)
        windowTouchesFirst = try v(.windowTouchesFirst, false)
        lateTouchReach = try v(.lateTouchReach, 0)
        guessMaxResidual = try v(.guessMaxResidual, Self.never)
    }
}
