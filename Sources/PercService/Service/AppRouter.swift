// Routes app messages into the service: contacts and presented reports to the frame clock, actuate to links.
import Foundation
import Logging
import MTKTangibles
import Synchronization
import PercSystem
import PercInput
import PercRuntime
import PercWeb

/// The service's `AppMessageSink`. Each app's contacts go through its own
/// `JSONContactDecoder` (inputs: it maps the app's clock and tracks begin/end per contact).
public final class AppRouter: AppMessageSink {
    private let clock: FrameClock
    private let surface: Vec2
    /// In `demo` the simulated display presents the overlay; a browser's reports are not the truth then.
    private let acceptPresented: Bool
    private let actuate: @Sendable (TangibleID, ActuationRequest) -> AppProtocolError?
    private let decoders = Mutex<[Int: JSONContactDecoder]>([:])
    /// `demo --display app`: the apps' presented reports go to the simulated display instead.
    private let presentedHandler = CallbackSlot<PresentedOverlay>()
    private let logger: Logger

    init(clock: FrameClock, surface: Vec2, acceptPresented: Bool, logger: Logger,
         actuate: @escaping @Sendable (TangibleID, ActuationRequest) -> AppProtocolError?) {
        self.clock = clock; self.surface = surface; self.acceptPresented = acceptPresented
        self.logger = logger; self.actuate = actuate
    }

    public func appSent(_ message: AppInbound, raw: Data, from client: AppClient, at arrival: Seconds) -> AppProtocolError? {
        switch message {
        case .hello(let name, _, let draws, let fallback):
            logger.info("app says hello", metadata: ["client": "\(client.id)", "name": "\(name ?? "-")", "draws_overlay": "\(draws)", "overlay_fallback": "\(fallback)"])
            return nil
        case .presented(let overlay, let time, _):
            if presentedHandler(PresentedOverlay(overlayID: overlay, from: min(time ?? arrival, arrival))) { return nil }
            guard acceptPresented else { return nil }
            // Without a mapped time the arrival is the best (latest) estimate of presentation.
            let from = min(time ?? arrival, arrival)
            clock.add(PresentedOverlay(overlayID: overlay, from: from))
            return nil
        case .contacts:
            var out: [ContactUpdate] = []
            let ok = decoders.withLock { d -> Bool in
                var decoder = d[client.id] ?? JSONContactDecoder(origin: InputOrigin(kind: .json, device: "app-\(client.id)"),
                                                                 surfaceSize: surface)
                let ok = decoder.decode(raw, arrival: arrival, into: &out)
                d[client.id] = decoder
                return ok
            }
            clock.add(contacts: out)
            return ok ? nil : AppProtocolError(code: .invalid, message: "contacts message rejected; see docs/app-protocol.md", inReplyTo: "contacts")
        case .actuate(let tangible, let request):
            return actuate(tangible, request)
        case .ping:
            return nil
        }
    }

    /// Sends the apps' presented reports to `handler` (the demo's simulated light sensors
    /// then see what a real app put on screen) instead of the frame clock.
    public func divertPresented(_ handler: @escaping @Sendable (PresentedOverlay) -> Void) {
        presentedHandler.set(handler)
    }

    /// Forgets a disconnected app's contact state; contacts it left down end where they were
    /// (else they would stay on the surface, and in every frame, for as long as serve runs).
    public func appDisconnected(_ client: AppClient) {
        guard var decoder = decoders.withLock({ $0.removeValue(forKey: client.id) }) else { return }
        let ended = decoder.endAll(at: MonotonicClock.now())
        guard !ended.isEmpty else { return }
        logger.info("app went away with \(ended.count) contacts down; they end now", metadata: ["client": "\(client.id)"])
        clock.add(contacts: ended)
    }
}
