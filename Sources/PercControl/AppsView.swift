// What the control API's Status says about the apps, without knowing the web server.

/// The app side as `Status` reports it: how many apps are connected and where the web
/// server listens. The service's `AppHub` (PercWeb) is one; the composition root says so.
public protocol AppsView: Sendable {
    var clientCount: Int { get }
    /// `host:port` of the web server once it listens, nil before (or with HTTP off).
    var listening: String? { get }
}
