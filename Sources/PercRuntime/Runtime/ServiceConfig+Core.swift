// Maps the config file's recognition and light-check sections onto the pure modules' configs.
import LightCheck
import MTKTangibles

extension ServiceConfig {
    public var engineConfig: EngineConfig {
        var c = EngineConfig()
        c.timeWindow = recognition.timeWindowMS / 1000
        c.tolerance = recognition.markerToleranceMM
        c.adaptTolerance = recognition.adaptTolerance
        c.locateLoneTouches = recognition.locateLoneTouches
        c.turnJitter = recognition.touchJitterMM
        c.stationaryCheckInterval = lightChecks.stationaryIntervalMS / 1000
        c.stationaryFailureLimit = lightChecks.maxFailedStationary
        return c
    }

    public var lightCheckConfig: LightCheckConfig {
        var c = LightCheckConfig()
        c.patchRadius = lightChecks.patchRadiusMM
        c.maxCheckDuration = lightChecks.maxCheckDurationMS / 1000
        c.maxCheckSpeed = lightChecks.maxCheckSpeedMMPerS
        c.stationaryMinInterval = lightChecks.stationaryIntervalMS / 1000
        c.latency.setTable(refreshHz: lightChecks.displayRefreshHz, bleInterval: lightChecks.bleIntervalMS / 1000)
        return c
    }
}
