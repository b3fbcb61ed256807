// Sends each frame as TUIO 1.1 and/or 2.0 over UDP to the configured targets (swift-nio).
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// A FrameOutput: encodes on the pipeline's thread (cheap), hands the datagrams to NIO and
/// returns without waiting, so a slow network never holds a frame up.
final class TUIOOutput: FrameOutput {
    private let encoder: Mutex<TUIOEncoder>
    private let channel: any Channel
    private let targets: [SocketAddress]
    private let versions: ServiceConfig.TUIO.Versions
    private let metrics: ServiceMetrics?

    private init(encoder: TUIOEncoder, channel: any Channel, targets: [SocketAddress],
                 versions: ServiceConfig.TUIO.Versions, metrics: ServiceMetrics?) {
        self.encoder = Mutex(encoder); self.channel = channel; self.targets = targets
        self.versions = versions; self.metrics = metrics
    }

    /// Binds an ephemeral UDP socket and resolves the targets (numeric or host names).
    static func start(targets: [HostPort], versions: ServiceConfig.TUIO.Versions, source: String,
                      surface: (Double, Double), maxDatagramBytes: Int, metrics: ServiceMetrics?) async throws -> TUIOOutput {
        let addresses = try targets.map { try SocketAddress.makeAddressResolvingHost($0.host, port: $0.port) }
        let v6 = addresses.contains { if case .v6 = $0 { true } else { false } }
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_broadcast), value: 1)
            .bind(host: v6 ? "::" : "0.0.0.0", port: 0).get()
        let name = source.isEmpty ? "percbridge@\(ProcessInfo.processInfo.hostName)" : source
        return TUIOOutput(encoder: TUIOEncoder(source: name, surface: .init(surface.0, surface.1), maxDatagramBytes: maxDatagramBytes),
                          channel: channel, targets: addresses, versions: versions, metrics: metrics)
    }

    func publish(_ result: FrameResult) {
        let (v11, v20) = encoder.withLock {
            $0.encode(result.snapshot, unixTime: Date().timeIntervalSince1970, v11: versions.sends11, v20: versions.sends20)
        }
        var datagrams: [[UInt8]] = []
        if versions.sends11 { datagrams += v11 }
        if versions.sends20 { datagrams += v20 }
        for target in targets {
            for d in datagrams {
                let envelope = AddressedEnvelope(remoteAddress: target, data: channel.allocator.buffer(bytes: d))
                channel.writeAndFlush(envelope, promise: nil)
            }
        }
        metrics?.tuioPackets.increment(by: datagrams.count * targets.count)
    }

    func close() async {
        try? await channel.close()
    }
}
