// What a web origin in `http.allowed_origins` must look like (docs/security.md); the TUIO input bounds are in ConfigSchema.

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
