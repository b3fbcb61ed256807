// The analysis settings that follow the service config (window, frame rate, stationary interval).
import PercRuntime

extension DiagnoseSettings {
    public init(config: ServiceConfig) {
        self.init()
        configuredWindow = config.recognition.timeWindowMS / 1000
        framePeriod = 1 / config.clock.rateHz
        stationaryInterval = config.lightChecks.stationaryIntervalMS / 1000
        displayRefreshHz = config.lightChecks.displayRefreshHz
    }
}
