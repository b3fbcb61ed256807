// Sends each frame as TUIO 1.1 and/or 2.0 over UDP to the configured targets, from the frame loop.
import Foundation
import Logging
import NIOCore
import Synchronization
#if canImport(Glibc)
import Glibc
import PercInput
#endif

/// A FrameOutput: encodes and sends on the pipeline's thread with non-blocking `sendto`, so
/// a datagram leaves as soon as its frame is done (handing it to an event loop thread first
/// cost a thread wake-up, ~0.1–0.5 ms on the 2-core development VM, docs/benchmarks.md). A
/// full socket buffer never holds a frame up: that datagram is dropped, counted in
/// `percbridge_tuio_send_errors_total` and logged at most once a second.
public final class TUIOOutput: FrameOutput {
    private let encoder: Mutex<TUIOEncoder>
    /// One socket per address family the targets need (IPv4 at 0, IPv6 at 1); empty once
    /// closed (held while sending, so a closed descriptor's number is never written to).
    private let sockets: Mutex<[Int32?]>
    private let targets: [SocketAddress]
    private let versions: ServiceConfig.TUIO.Versions
    private let metrics: ServiceMetrics?
    private let logger: Logger?
    private let errorLog = LogRateLimit()

    struct Failure: Error, CustomStringConvertible { var description: String }

    private init(encoder: TUIOEncoder, sockets: [Int32?], targets: [SocketAddress], versions: ServiceConfig.TUIO.Versions,
                 metrics: ServiceMetrics?, logger: Logger?) {
        self.encoder = Mutex(encoder); self.sockets = Mutex(sockets); self.targets = targets
        self.versions = versions; self.metrics = metrics; self.logger = logger
    }

    /// Opens the sockets (ephemeral ports) and resolves the targets (numeric or host names).
    public static func start(targets: [HostPort], versions: ServiceConfig.TUIO.Versions, source: String,
                      surface: (Double, Double), maxDatagramBytes: Int, metrics: ServiceMetrics?,
                      logger: Logger? = nil) async throws -> TUIOOutput {
        let addresses = try targets.map { try SocketAddress.makeAddressResolvingHost($0.host, port: $0.port) }
        func open(_ family: Int32) throws -> Int32 {
            let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw Failure(description: "cannot open a UDP socket for TUIO: \(String(cString: strerror(errno)))") }
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, socklen_t(MemoryLayout<Int32>.size))
            return fd
        }
        let v4 = addresses.contains { if case .v4 = $0 { true } else { false } } ? try open(AF_INET) : nil
        let v6 = addresses.contains { if case .v6 = $0 { true } else { false } } ? try open(AF_INET6) : nil
        let name = source.isEmpty ? "percbridge@\(ProcessInfo.processInfo.hostName)" : source
        return TUIOOutput(encoder: TUIOEncoder(source: name, surface: .init(surface.0, surface.1), maxDatagramBytes: maxDatagramBytes),
                          sockets: [v4, v6], targets: addresses, versions: versions, metrics: metrics, logger: logger)
    }

    public func publish(_ result: FrameResult) {
        let (v11, v20) = encoder.withLock {
            $0.encode(result.snapshot, unixTime: Date().timeIntervalSince1970, v11: versions.sends11, v20: versions.sends20)
        }
        let datagrams = v11 + v20
        var failures: [(SocketAddress, Int32)] = []
        let sent = sockets.withLock { sockets -> Int in
            guard !sockets.isEmpty else { return 0 }
            var sent = 0
            for target in targets {
                let socket: Int32? = if case .v6 = target { sockets[1] } else { sockets[0] }
                guard let socket else { continue }
                for d in datagrams {
                    let n = d.withUnsafeBytes { bytes in
                        target.withSockAddr { address, length in
                            sendto(socket, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), address, socklen_t(length))
                        }
                    }
                    if n == d.count { sent += 1 } else { failures.append((target, errno)) }
                }
            }
            return sent
        }
        metrics?.tuioPackets.increment(by: sent)
        for (target, code) in failures { failed(target, code) }
    }

    private func failed(_ target: SocketAddress, _ code: Int32) {
        metrics?.tuioSendErrors.increment()
        guard let suppressed = errorLog.due() else { return }
        let more = suppressed > 0 ? "; \(suppressed) more not sent since the last line" : ""
        let line = "TUIO datagram to \(target) not sent: \(String(cString: strerror(code)))\(more); "
            + "counted in percbridge_tuio_send_errors_total, logged at most once a second"
        logger?.warning("\(line)")
    }

    public func close() async {
        let open = sockets.withLock { s -> [Int32] in defer { s = [] }; return s.compactMap { $0 } }
        for fd in open { _ = Glibc.close(fd) }
    }
}
