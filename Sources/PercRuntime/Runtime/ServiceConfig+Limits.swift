// The config keys that bound hostile input: TUIO input limits and web origins (docs/security.md).
import NIOCore
import PercInput

extension ServiceConfig.Input {
    /// Reads the bound keys of a `kind = "tuio"` input.
    static func readTUIOLimits(_ r: ConfigTableReader) -> TUIOLimits {
        let d = TUIOLimits()
        return TUIOLimits(
            sourceTimeout: r.double("source_timeout_s", in: 0.1...60, unit: "s", default: d.sourceTimeout),
            maxSources: r.int("max_sources", in: 1...1024, unit: "sources", default: d.maxSources),
            maxTracesPerSource: r.int("max_traces_per_source", in: 1...4096, unit: "traces", default: d.maxTracesPerSource),
            maxTraces: r.int("max_traces", in: 1...4096, unit: "traces", default: d.maxTraces),
            allowFrom: r.strings("allow_from", allowed: "a list of sender IP addresses, e.g. [\"127.0.0.1\", \"::1\"]",
                                 valid: { HostPort.isIPLiteral($0) ? nil : "is not an IP address" }, default: d.allowFrom))
    }
}

extension ServiceConfig.HTTP {
    /// nil when `origin` can be compared with a browser's `Origin` header.
    public static func originProblem(_ origin: String) -> String? {
        // "null": pages opened from disk (file://) and sandboxed frames of any site.
        if origin == "*" || origin == "null" { return nil }
        guard origin.hasPrefix("http://") || origin.hasPrefix("https://"),
              !origin.dropFirst(origin.hasPrefix("https://") ? 8 : 7).contains("/") || origin.hasSuffix("/") else {
            return "is not an origin (scheme://host[:port], no path)"
        }
        return nil
    }
}
