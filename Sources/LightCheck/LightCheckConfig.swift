// Every setting of the light-check scheduler, with documented defaults (docs/lightcheck.md).
import MTKTangibles

/// Settings of ``LightCheckScheduler``. Codable; a missing key takes its default, so a config
/// file only names what it changes. Times in seconds, lengths in millimetres.
public struct LightCheckConfig: Hashable, Sendable, Codable {
    /// Where patches may be drawn (thesis 3.3.2: the user should not see them).
    public enum FootprintPolicy: String, Hashable, Sendable, Codable {
        /// Only patches lying inside the footprint of every live hypothesis: whichever one is
        /// right, the tangible covers them. Candidates that cannot be drawn so wait; when none
        /// can, the check ends `inconclusive`.
        case strict
        /// Covered candidates first; a candidate no plan can cover is drawn inside its own
        /// hypothesis's footprint once nothing covered is left to test (default).
        case preferCovered
        /// Anywhere (debugging, calibration rigs).
        case anywhere
    }

    /// What to do with a tangible whose traces move.
    public enum MovingStrategy: String, Hashable, Sendable, Codable {
        /// Draw at the position predicted for the time the patch will be seen.
        case predict
        /// Draw nothing until it stops (the thesis's way).
        case wait
    }

    // MARK: Patches
    /// Radius of probe and decoy patches; shrunk when candidates are close together.
    public var patchRadius: Double = 4
    /// Candidates closer than two of these (plus the gap) cannot be told apart.
    public var minPatchRadius: Double = 1.5
    /// Free space kept between neighbouring patches.
    public var patchGap: Double = 1
    /// A drawn patch stays where it is while its candidate stays within this fraction of the
    /// patch's radius: the traces' jitter (0.5–1 mm a frame) moves no patch, and an app gets
    /// a new overlay only when the plan changes.
    public var patchHoldFraction: Double = 0.25
    public var footprintPolicy: FootprintPolicy = .preferCovered

    // MARK: Sensor model (likelihoods of the evidence)
    /// Chance that a sensor under a probe does not respond (HARDWARE-MODEL: 3%).
    public var missProbability: Double = 0.03
    /// Changes per second of a sensor under a steady patch (HARDWARE-MODEL: 0.5%/s).
    public var spontaneousFlipRate: Double = 0.005
    /// Changes per second of a sensor under no patch (the app's scene changes too).
    public var sceneFlipRate: Double = 0.05
    /// Chance that a flip inside a round is a late answer to an earlier round.
    public var lateResponseProbability: Double = 0.0005
    /// A flip is evidence about every patch the sensor could have seen, not only the
    /// round's own: when a patch of another tangible (on screen in the colour the sensor
    /// flipped to, or gone, both less than one presentation delay plus the deadline before
    /// the flip) or a patch that just went and left its place bare (this check's too) could
    /// have made the sensor flip, the places under it, and "none of them" when it lies
    /// within `explainReach` footprint radii of a hypothesis, explain the flip as well as a
    /// probe does: the flip confirms nothing; "none" does too when another searching
    /// tangible's sensor answered one of this round's patches (it may be there). And a
    /// hypothesis is not confirmed on a place another check holds (see
    /// `LightCheckScheduler.placeTaken`). Recordings made before this setting existed read
    /// it as off, so they replay as they ran.
    public var everyPatchEvidence = true
    /// How far (in footprint radii from a hypothesis's sensor position) a sensor that is on
    /// none of the hypotheses may be: another patch within it explains a flip for "none"
    /// (2: about one PERC across; the hypotheses are made of the PERC's window touches).
    public var explainReach: Double = 2
    /// A hypothesis that inherits the weight of hypotheses the engine dropped while they
    /// held weight is confirmed only after an answer that told it apart from them (a round
    /// that probed it and not them flipped): before, seed 1 case 8081 of `bench accuracy`
    /// confirmed a candidate that had only ever been probed together with the true one,
    /// once the engine dropped the true one. Recordings made before this setting existed
    /// read it as off.
    public var toldApartFromDeparted = true
    /// A locate search that decided keeps its tangible's sensor quiet, as a calibration that
    /// found the offset and a withdrawn check do: its patches go with it, and the sensor's
    /// answer to that is no answer to the next check's first round. Before, a check asked
    /// right after a locate (a placed PERC's second marker, a trial variant of the engine)
    /// could take the sensor's fall back to the background, 33 ms later, for an answer to its
    /// own probe (LocateScenarioTests). Recordings made before this setting existed read it
    /// as off.
    public var quietAfterLocate = true
    /// A round held while its patches showed (the tangible moved too fast) keeps its
    /// tangible's sensor quiet, as a withdrawn check does: the sensor may still answer the
    /// patches that went, and that answer is none to the next round, which may show the
    /// other colour there (`bench accuracy --seed 1 --show 7919`, serve timing: the true
    /// place showed the probe colour for one refresh, the round was held, the next one probed
    /// the mirror pose, and the sensor's answer to the first confirmed it: a wrong turn).
    /// Recordings made before this setting existed read it as off.
    public var quietAfterHeldRound = true
    /// A locate search's rounds start while its tangible is quiet after an earlier check (its
    /// patches just went), as an identify check's do: a flip in the quiet voids the round,
    /// and the next one starts from the sensor's new colour. Before, the locate's first disc
    /// waited out the quiet (one presentation delay and one deadline, ~110 ms) after the
    /// identify check that came before it (`bench accuracy --seed 7 --show 541`: asked at
    /// 1.258 s, first disc at 1.367 s). Recordings made before this setting existed read it
    /// as off.
    public var locateInQuiet = true
    /// A round's evidence goes by place, not by the ids the engine offered when it began: a
    /// hypothesis that joins while the round shows a patch over its place takes that patch's
    /// role (probe or decoy), and one the engine leaves out for a frame is weighed by the
    /// rounds that end meanwhile. Before, a pair near the tolerance of two sides of the
    /// pattern, offered on one side one frame and on the other the next (two ids for one
    /// place), was weighed only by rounds that began and ended while its id was offered
    /// (`bench accuracy --seed 2 --show 193`: a check of another PERC's pairs ran 1.5 s
    /// without being rejected while that PERC's own check waited behind it). Recordings made
    /// before this setting existed read it as off.
    public var evidenceByPlace = true
    /// Two sensors are not under one small patch: another tangible's patch over a place its
    /// own check holds with at least `occupiedWeight`, once its own sensor answered a round
    /// that probed only that place (an answer no other patch explained for "none"), does not
    /// explain this sensor's flip for "none" (under `everyPatchEvidence`). Before, two PERCs
    /// set down together, each with a hypothesis a few mm from the other's place, had every
    /// flip explained for "none" by the other's patches and neither check could end (`bench
    /// accuracy --seed 2 --show 1660`). Recordings made before this setting existed read it
    /// as off.
    public var occupiedPlaces = true
    /// "None" reaches the tangible's candidates its need does not offer: another tangible's
    /// patch over the sensor's place on one of them (`VerificationNeed.otherPlaces`) explains a
    /// flip for "none" too. Before, a check that began on another PERC's pair before its own
    /// triple was offered read that PERC's probe on its own sensor, 132 mm from its
    /// hypotheses, as an answer (`bench accuracy --seed 1 --show 6493` under a trial).
    /// Recordings made before this setting existed read it as off.
    public var explainOtherPlaces = true
    /// A hypothesis is confirmed only after an answer that told it apart from the hypotheses
    /// that joined the check after it began and were probed with it (a flipped round that
    /// probed it and none of them): a newcomer takes only a share of "none" (a few % while no
    /// round has ended), so one answer on a probe set shared with newcomers and one missed
    /// answer on the newcomers could confirm it. Before, `bench accuracy --seed 1 --hardware
    /// bleConnectionInterval=0.0075 --show 6964` confirmed the other PERC's pair that way.
    /// Recordings made before this setting existed read it as off.
    public var toldApartFromNewcomers = true
    /// A hypothesis that joins a round beside one of its probes takes that probe's role for
    /// the round: in a staggered round, the probe set it joined (before, a staggered answer was
    /// read against the sets alone, and a newcomer sharing a probe's patch counted as a decoy),
    /// and also when its place lies apart from the probe's (its own cluster, so the layout
    /// shrank) but within the radius the probe showed this round plus the smallest patch and
    /// the gap: the sensor, if there, may have seen that probe before it shrank, so its answer
    /// does not single out the probed place. Before, `bench accuracy --seed 3 --show 9372`
    /// confirmed a finger's pair: its probe (4 mm) covered the true sensor 3.9 mm away, the
    /// PERC's own pair joined 5.4 mm from it, the patches shrank to 2.2 mm and the answer to
    /// the first probe was read as the finger pair's alone. Recordings made before this setting
    /// existed read it as off.
    public var newcomersTakeProbes = true
    /// The weight of the other check's hypotheses under its patch from which the place
    /// counts as occupied (`occupiedPlaces`).
    public var occupiedWeight: Double = 0.9

    // MARK: Decisions
    /// Posterior a hypothesis needs to be confirmed.
    public var confirmPosterior: Double = 0.995
    /// Posterior of "none of them" needed to reject all.
    public var rejectPosterior: Double = 0.995
    /// Prior that none of an identify need's hypotheses is right.
    public var priorNoneCorrect: Double = 0.05
    /// Rounds (probe showings) after which a check ends `inconclusive`.
    public var maxRounds: Int = 14
    /// Rounds voided by unexplained flips after which a check ends `inconclusive`.
    public var maxVoidedRounds: Int = 6
    /// Time after which a check ends `inconclusive`.
    public var maxCheckDuration: Seconds = 4

    // MARK: Timing
    public var latency: LatencyModel.Settings = .init()
    /// Whether the app reports presented overlays; without reports the scheduler assumes
    /// each overlay is on screen `assumedPresentationDelay` after it was planned.
    public var expectPresentedReports: Bool = true
    public var assumedPresentationDelay: Seconds = 1.0 / 60
    /// How long to wait for a presented report before assuming the overlay is shown.
    public var presentationTimeout: Seconds = 0.25
    /// Colour shown at every candidate when the sensor's state is not known yet.
    public var primeColour: LightColour = .black

    // MARK: Moving tangibles
    public var movingStrategy: MovingStrategy = .predict
    /// Faster than this (mm/s) a tangible is not checked, even with prediction.
    public var maxCheckSpeed: Double = 120
    /// Extra patch radius per mm/s of speed (covers the prediction's error).
    public var movingRadiusPerSpeed: Double = 0.01

    // MARK: Stationary checks
    public var stationaryPatchRadius: Double = 2.5
    /// Least time between two stationary checks of one tangible.
    public var stationaryMinInterval: Seconds = 2
    /// Prior that a resting tangible has moved.
    public var stationaryPriorMoved: Double = 0.1
    public var stationaryConfirmPosterior: Double = 0.99
    public var stationaryRejectPosterior: Double = 0.99

    // MARK: Calibration
    public var calibration: CalibrationSettings = .init()
    /// The search for the light sensor of a PERC that made one touch (a `locate` need): the
    /// same noisy bisection as a calibration, over the sensor positions of the poses around
    /// the touch. Its pose must be right to a few millimetres at markers 40 mm from the
    /// touch, so the sensor is wanted within 1.5 mm; a search that takes longer than
    /// `maxRounds` is inconclusive (asked again later). `gridSpacing` is not used (the
    /// engine's `locateTurnStep` sets the cells).
    public var locate: CalibrationSettings = .locateDefaults
    /// A locate search that starts again for a PERC that has not been lifted (its lone
    /// touches changed, or an identify check of it ran in between) goes on from the rounds
    /// of its locate before that ended at most this long ago (seconds), when the two share
    /// a lone touch where it was: each round is still evidence about where the sensor lies.
    /// 0 starts every search from nothing. Recordings made before this setting existed read
    /// it as 0, so they replay as they ran.
    public var locateMemory: Seconds = 2
    /// Read a flip by when the sensor changed by its own clock (PERC GATT v1 device time,
    /// mapped through the link's fastest notification), not only by when it arrived: a flip
    /// that changed before the showing round's patches could be seen is no answer to them
    /// (it answered the silent round before, late: its latency teaches the deadline).
    /// Recordings made before this setting existed read it as off, so they replay as they ran.
    public var sensorClock = true
    /// Staggered probes: a round of a sensor whose notifications carry its clock shows its
    /// probe set, then turns up to `staggerSlots` − 1 further candidates (the likeliest of
    /// its decoys, one at a time) to the probe colour, each once the sensor's response span
    /// (`LatencyModel.responseSpan`: the prior `latency.minSensorResponse` …
    /// `maxSensorResponse`, widened by what it learned, and later by how late the link's
    /// fastest notification may itself have been) has passed since the one before showed.
    /// When the sensor changed, by its clock, tells which of them it answered, so a silence
    /// is not waited out before the next candidate is probed, and each answer still singles
    /// out what it saw; a change that fits two of them is read as an answer to both, one that
    /// fits none as an answer to all. `staggerAfterResponses`: responses it must have learned
    /// first (0: from the prior). docs/lightcheck.md "Staggered probes". Recordings made
    /// before this setting existed read it as off.
    public var staggeredProbes = true
    public var staggerSlots = 3
    public var staggerAfterResponses = 0
    /// A check waiting its turn because another tangible's patches lie over its candidates,
    /// or went from there less than one deadline ago, reserves its candidates against that
    /// tangible's next rounds only once it has waited this long (seconds), and the longest
    /// waiting goes first. Before, a waiting check reserved at once and waiters went in id
    /// order: the other tangible lost one frame between its rounds, the check still could not
    /// start (the echo of those patches), and that bare frame made the other's next answer
    /// tell nothing about the places it had just probed (`bench accuracy --seed 1 --show
    /// 186`: two answered rounds of five). 0 keeps that behaviour; recordings made before
    /// this setting existed read it as 0.
    public var reserveAfterWaiting: Seconds = 0.3
    /// The presentation delay is learned from each overlay's first presented report only
    /// (later reports of it, from a second app or one that repeats itself, are taken for the
    /// rounds but teach nothing): re-reporting a standing overlay taught a delay that grew
    /// with its age (up to the 0.5 s clamp), and every echo and quiet window with it.
    /// Recordings made before this setting existed read it as off.
    public var presentationFromFirstReport = true
    /// A flip that answers no round showing (none runs, or the showing round is resetting or
    /// could not have been seen yet) is the late answer of the last silent round also when
    /// the sensor's clock puts the change up to `latency.maxSensorResponse` past that round's
    /// deadline: its patches still showed until the next overlay replaced them, and no other
    /// patch explains the change. Its silence is taken back and its latency teaches the
    /// deadline. Before, a sensor slower than the deadline it had been given never taught a
    /// longer one (every late answer read as a change of its own), and the silent round's
    /// evidence stood: an end-to-end locate under load confirmed the pose next to the true
    /// one (EndToEndTests.aPercThatMakesOneTouchIsLocatedByLight, docs/lightcheck.md "Late
    /// answers past the deadline"). Recordings made before this setting existed read it as off.
    public var lateAnswersPastDeadline = true
    /// A late answer to the round before that voids a round whose patches were sent to the
    /// screen keeps the tangible's sensor quiet, as a withdrawn check does: the sensor may
    /// still answer the voided round's patches, and the next round, started from the new
    /// colour, would read that as its own answer. A change of the sensor's own that voids a
    /// round does not (tried: it slowed locates and crowds, docs/lightcheck.md "Late answers
    /// past the deadline"). Recordings made before this setting existed read it as off.
    public var quietAfterVoidedRound = true

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = LightCheckConfig()
        func v<T: Decodable>(_ k: CodingKeys, _ def: T) throws -> T { try c.decodeIfPresent(T.self, forKey: k) ?? def }
        patchRadius = try v(.patchRadius, d.patchRadius)
        minPatchRadius = try v(.minPatchRadius, d.minPatchRadius)
        patchGap = try v(.patchGap, d.patchGap)
        patchHoldFraction = try v(.patchHoldFraction, d.patchHoldFraction)
        footprintPolicy = try v(.footprintPolicy, d.footprintPolicy)
        missProbability = try v(.missProbability, d.missProbability)
        spontaneousFlipRate = try v(.spontaneousFlipRate, d.spontaneousFlipRate)
        sceneFlipRate = try v(.sceneFlipRate, d.sceneFlipRate)
        lateResponseProbability = try v(.lateResponseProbability, d.lateResponseProbability)
        everyPatchEvidence = try v(.everyPatchEvidence, false)
        explainReach = try v(.explainReach, d.explainReach)
        toldApartFromDeparted = try v(.toldApartFromDeparted, false)
        quietAfterLocate = try v(.quietAfterLocate, false)
        quietAfterHeldRound = try v(.quietAfterHeldRound, false)
        locateInQuiet = try v(.locateInQuiet, false)
        evidenceByPlace = try v(.evidenceByPlace, false)
        occupiedPlaces = try v(.occupiedPlaces, false)
        explainOtherPlaces = try v(.explainOtherPlaces, false)
        toldApartFromNewcomers = try v(.toldApartFromNewcomers, false)
        newcomersTakeProbes = try v(.newcomersTakeProbes, false)
        occupiedWeight = try v(.occupiedWeight, d.occupiedWeight)
        confirmPosterior = try v(.confirmPosterior, d.confirmPosterior)
        rejectPosterior = try v(.rejectPosterior, d.rejectPosterior)
        priorNoneCorrect = try v(.priorNoneCorrect, d.priorNoneCorrect)
        maxRounds = try v(.maxRounds, d.maxRounds)
        maxVoidedRounds = try v(.maxVoidedRounds, d.maxVoidedRounds)
        maxCheckDuration = try v(.maxCheckDuration, d.maxCheckDuration)
        latency = try v(.latency, d.latency)
        expectPresentedReports = try v(.expectPresentedReports, d.expectPresentedReports)
        assumedPresentationDelay = try v(.assumedPresentationDelay, d.assumedPresentationDelay)
        presentationTimeout = try v(.presentationTimeout, d.presentationTimeout)
        primeColour = try v(.primeColour, d.primeColour)
        movingStrategy = try v(.movingStrategy, d.movingStrategy)
        maxCheckSpeed = try v(.maxCheckSpeed, d.maxCheckSpeed)
        movingRadiusPerSpeed = try v(.movingRadiusPerSpeed, d.movingRadiusPerSpeed)
        stationaryPatchRadius = try v(.stationaryPatchRadius, d.stationaryPatchRadius)
        stationaryMinInterval = try v(.stationaryMinInterval, d.stationaryMinInterval)
        stationaryPriorMoved = try v(.stationaryPriorMoved, d.stationaryPriorMoved)
        stationaryConfirmPosterior = try v(.stationaryConfirmPosterior, d.stationaryConfirmPosterior)
        stationaryRejectPosterior = try v(.stationaryRejectPosterior, d.stationaryRejectPosterior)
        calibration = try v(.calibration, d.calibration)
        locateMemory = try v(.locateMemory, 0)
        sensorClock = try v(.sensorClock, false)
        staggeredProbes = try v(.staggeredProbes, false)
        staggerSlots = try v(.staggerSlots, d.staggerSlots)
        staggerAfterResponses = try v(.staggerAfterResponses, d.staggerAfterResponses)
        reserveAfterWaiting = try v(.reserveAfterWaiting, 0)
        presentationFromFirstReport = try v(.presentationFromFirstReport, false)
        lateAnswersPastDeadline = try v(.lateAnswersPastDeadline, false)
        quietAfterVoidedRound = try v(.quietAfterVoidedRound, false)
        locate = c.contains(.locate) ? try CalibrationSettings(from: c.superDecoder(forKey: .locate), defaults: d.locate) : d.locate
        if let problem = validationProblem {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: problem))
        }
    }

    /// Names the first setting out of its range, or nil when all are usable.
    public var validationProblem: String? {
        let probabilities: [(String, Double)] = [
            ("missProbability", missProbability), ("lateResponseProbability", lateResponseProbability),
            ("confirmPosterior", confirmPosterior), ("rejectPosterior", rejectPosterior),
            ("priorNoneCorrect", priorNoneCorrect), ("stationaryPriorMoved", stationaryPriorMoved),
            ("stationaryConfirmPosterior", stationaryConfirmPosterior),
            ("stationaryRejectPosterior", stationaryRejectPosterior),
        ]
        for (name, p) in probabilities where !(p > 0 && p < 1) {
            return "\(name) must lie strictly between 0 and 1 (got \(p))"
        }
        let positive: [(String, Double)] = [
            ("patchRadius", patchRadius), ("minPatchRadius", minPatchRadius),
            ("stationaryPatchRadius", stationaryPatchRadius), ("maxCheckDuration", maxCheckDuration),
            ("presentationTimeout", presentationTimeout), ("spontaneousFlipRate", spontaneousFlipRate),
            ("sceneFlipRate", sceneFlipRate), ("maxCheckSpeed", maxCheckSpeed), ("explainReach", explainReach),
        ]
        if !(reserveAfterWaiting >= 0 && reserveAfterWaiting <= 10) { return "reserveAfterWaiting must lie in [0, 10] seconds (got \(reserveAfterWaiting))" }
        if !(locateMemory >= 0 && locateMemory <= 60) { return "locateMemory must lie in [0, 60] seconds (got \(locateMemory))" }
        for (name, x) in positive where !(x > 0 && x.isFinite) {
            return "\(name) must be a positive number (got \(x))"
        }
        if minPatchRadius > patchRadius { return "minPatchRadius must not exceed patchRadius" }
        if !(patchHoldFraction >= 0 && patchHoldFraction < 1) { return "patchHoldFraction must lie in 0..<1 (got \(patchHoldFraction))" }
        if maxRounds < 1 { return "maxRounds must be at least 1" }
        if !(1...8).contains(staggerSlots) { return "staggerSlots must lie in 1...8 (got \(staggerSlots))" }
        if !(0...40).contains(staggerAfterResponses) { return "staggerAfterResponses must lie in 0...40 (got \(staggerAfterResponses))" }
        return latency.validationProblem ?? calibration.validationProblem ?? locate.validationProblem.map { "locate: " + $0 }
    }
}
