// Define (thesis 3.6.3: marker pattern from the traces, then the light-sensor offset) and Calibrate.
import LightCheck
import MTKTangibles
import Synchronization
import PercSystem
import PercInput
import PercRuntime

extension ControlService {
    /// Defines a tangible from the three still traces now on the surface; for a PERC then
    /// finds its light-sensor offset with LightCheck's calibration (the thesis's bisection of
    /// the screen under the tangible) and stores it. Returns the stored definition and the
    /// calibration's result.
    func define(name rawName: String, kind rawKind: String, address rawAddress: String) async throws -> [String: DBusValue] {
        let name = rawName.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, InputText.nameProblem(name) == nil else {
            throw ControlError(.InvalidArgument, "give the tangible a name of 1 to 64 printable characters (not \"\(InputText.clip(name))\"), e.g. percbridge define \"PERC red\" --address AA:BB:CC:DD:EE:FF")
        }
        guard Int(name) == nil else {
            throw ControlError(.InvalidArgument, "the name \"\(name)\" is a number, and numbers name tangibles by id; choose a name with a letter")
        }
        let address = rawAddress.trimmingCharacters(in: .whitespaces).isEmpty ? nil : try Self.checkedAddress(rawAddress)
        let kind: TangibleDefinition.Kind
        switch rawKind.lowercased() {
        case "perc": kind = .perc
        case "puc": kind = .puc
        case "": kind = address == nil ? .puc : .perc
        default: throw ControlError(.InvalidArgument, "kind \"\(InputText.clip(rawKind))\" is neither perc nor puc")
        }
        if kind == .perc && address == nil {
            throw ControlError(.InvalidArgument, "a PERC needs the Bluetooth address of its module (--address AA:BB:CC:DD:EE:FF, see `percbridge status`); a tangible without a module is a PUC (--kind puc)")
        }
        if kind == .puc && address != nil {
            throw ControlError(.InvalidArgument, "a PUC has no Bluetooth module: leave out the address, or define it as a PERC (--kind perc)")
        }
        // A PERC was registered by pair (a standard PERC until now): define measures it.
        let known = try load()
        let target: TangibleDefinition?
        if let address {
            guard let t = known.tangibles.first(where: { $0.address?.uppercased() == address }) else {
                throw ControlError(.NotPaired, "\(address) is not paired; pair it first: percbridge pair \(address)")
            }
            target = t
        } else {
            target = nil
        }
        if let other = known.tangibles.first(where: { $0.name == name && $0.id != target?.id }) {
            throw ControlError(.NameTaken, "a tangible named \"\(name)\" exists already (id \(other.id)); choose another name or forget it first (percbridge forget \(other.id))")
        }
        try begin("define", busy: "another define is running (one tangible at a time); wait for it to finish")
        defer { end("define") }

        // 1. Three still traces (the creation scene's "exactly three touches"), free or held
        //    by the tangible being defined (its standard pattern may have matched).
        let seen = Mutex((free: 0, still: 0))
        let own = target?.id
        let traces: [TraceID] = try await waiters.wait(timeout: settings.traceWait, timeoutError: {
            let s = seen.withLock { $0 }
            return ControlError(.NoTraces, "no three still traces on the surface (found \(s.free) free traces, \(s.still) of them still): "
                + (s.free > 3 ? "lift your fingers and anything else untracked, " : "put the tangible down so that all three markers touch, ")
                + "keep it still, then run define again")
        }) { view in
            let core = view.pipeline.core
            let still = core.stillFreeTraceIDs(including: own)
            let free = core.freeTraceIDs.count + (own.flatMap { core.lastOutput?.tangible($0)?.traces.count } ?? 0)
            seen.withLock { $0 = (free, still.count) }
            return still.count == 3 && free == 3 ? still : nil
        }

        // 2. The marker pattern, stored at once (a PERC with the standard offset until calibrated).
        let (draft, pose): (TangibleDefinition, Pose) = try pipeline.withPipeline { p in
            do {
                let d = try p.core.define(id: target?.id ?? 0, name: name, kind: kind, address: address, profile: target?.profile, traces: traces)
                return (d, p.core.definedPose(traces: traces))
            } catch let e as DefinitionError {
                throw ControlError(.BadPattern, "\(e)")
            }
        }
        let stored = try changeRegistry { r -> TangibleDefinition in
            guard let t = target else { return try r.add(draft) }
            guard r.definition(t.id) != nil else {
                throw ControlError(.UnknownTangible, "tangible \(t.id) was forgotten while it was being defined")
            }
            var d = draft
            d.lightWhiteValue = t.lightWhiteValue
            try r.update(d)
            return d
        }
        try await engineTakes("the new definition of \(stored.name)") { core in core.engine.definitions.contains(stored) }
        logger.notice("defined tangible \(stored.id) (\(stored.name)) from traces \(traces)", metadata: ["tangible": "\(stored.name)"])
        let reply = ControlValues.definition(stored)
        guard kind == .perc else { return reply }

        // 3. The light-sensor offset, where the tangible lies now.
        let result = try await calibrate(stored, pose: pose, storedHint: "defined as tangible \(stored.id) with the standard offset")
        return placedReply(result)
    }

    /// A defined or calibrated PERC's reply: its definition, the calibration, and a warning
    /// when its light sensor is about equally far from two markers (logged too).
    private func placedReply(_ result: (definition: TangibleDefinition, calibration: CalibrationResult)) -> [String: DBusValue] {
        var reply = ControlValues.definition(result.definition)
        reply["calibration"] = .stringVariantDictionary(ControlValues.calibration(result.calibration))
        let tolerance = pipeline.withPipeline { $0.core.engine.config.locateAmbiguity }
        ControlValues.warn(result.definition, locateAmbiguity: tolerance, into: &reply)
        if let warning = reply["warnings"]?.array?.first?.string {
            logger.warning("tangible \(result.definition.id) (\(result.definition.name)): \(warning)", metadata: ["tangible": "\(result.definition.name)"])
        }
        return reply
    }

    /// Finds the light-sensor offset of a PERC lying still on the surface (tracked or resting).
    func calibrate(_ key: String) async throws -> [String: DBusValue] {
        let key = key.trimmingCharacters(in: .whitespaces)
        guard let d = pipeline.withPipeline({ p in p.core.engine.definitions.first { "\($0.id)" == key || $0.name == key || $0.address?.uppercased() == key.uppercased() } }) else {
            throw ControlError(.UnknownTangible, "no tangible \"\(InputText.clip(key))\" in the registry; `percbridge list` shows the known ones")
        }
        guard d.kind == .perc else { throw ControlError(.NotAPerc, "\(d.name) is a PUC: it has no light sensor to calibrate") }
        return placedReply(try await calibrate(d, pose: nil, storedHint: "the old offset stays"))
    }

    /// Runs the offset search for `d` (at `pose`, or where the engine tracks it), waits for
    /// its result and stores the offset.
    private func calibrate(_ d: TangibleDefinition, pose: Pose?, storedHint: String) async throws
        -> (definition: TangibleDefinition, calibration: CalibrationResult) {
        let job = "calibrate \(d.id)"
        try begin(job, busy: "tangible \(d.id) is being calibrated already; wait for that call to finish")
        defer { end(job) }
        try pipeline.withPipeline { p in
            try p.withCore { core in
                do {
                    if let pose { try core.startCalibration(of: d.id, at: pose) } else { try core.startCalibration(of: d.id) }
                } catch EngineCore.CalibrationError.notOnSurface(let id) {
                    throw ControlError(.NotOnSurface, "tangible \(id) (\(d.name)) is not tracked: put it on the surface, wait until `percbridge list` shows it tracked or resting, keep it still, and calibrate again")
                } catch EngineCore.CalibrationError.alreadyRunning(let id) {
                    throw ControlError(.Busy, "a calibration of tangible \(id) is running already")
                }
            }
        }
        logger.notice("calibrating the light sensor of tangible \(d.id) (\(d.name))", metadata: ["tangible": "\(d.name)"])
        let seconds = Int(settings.calibrationWait.components.seconds)
        let result: CalibrationResult
        do {
            result = try await waiters.wait(timeout: settings.calibrationWait, timeoutError: {
                ControlError(.Timeout, "the light-sensor calibration of \(d.name) found nothing in \(seconds) s (\(storedHint)); "
                    + "make sure an app draws the light-check overlay (e.g. the web viewer in full screen), keep the tangible still, then run percbridge calibrate \(d.id)")
            }) { view in view.calibrations.first { $0.tangible == d.id } }
        } catch {
            // No search may outlive its call: it would hold the tangible's checks.
            pipeline.withPipeline { $0.withCore { $0.cancelCalibration(of: d.id) } }
            throw error
        }
        guard let offset = result.offset, result.status != .cancelled else {
            throw ControlError(.CalibrationFailed, "the light-sensor calibration of \(d.name) was cancelled (\(storedHint)); keep the tangible still on the surface and run percbridge calibrate \(d.id)")
        }
        guard result.status == .found || result.confidence >= 0.5 else {
            throw ControlError(.CalibrationFailed, String(format: "the light-sensor calibration of %@ stayed unsure (confidence %.2f after %d rounds; %@); keep it still, check that the overlay is drawn under it, and run percbridge calibrate %d",
                                                          d.name, result.confidence, result.rounds, storedHint, d.id))
        }
        let updated = try changeRegistry { r -> TangibleDefinition in
            guard var current = r.definition(d.id) else {
                throw ControlError(.UnknownTangible, "tangible \(d.id) was forgotten while it was being calibrated")
            }
            current.lightSensorOffset = offset
            try r.update(current)
            return current
        }
        try await engineTakes("the new offset of \(d.name)") { core in core.engine.definitions.contains(updated) }
        logger.notice("light sensor of tangible \(d.id) at (\(offset.x), \(offset.y)) mm, confidence \(result.confidence)",
                      metadata: ["tangible": "\(d.name)"])
        return (updated, result)
    }
}
