// A flood of TUIO sources and cursors against `percbridge serve` over real UDP: the caps hold,
// silent sources expire with their cursors ended, and frames keep coming.
import Foundation
import Testing
import PercTestSupport

@Suite(.serialized) struct HostileTUIOTests {
    /// `steady PORT SECONDS`: one well-behaved tracker (source "steady", one moving cursor, 60 Hz).
    /// `flood PORT SOURCES CURSORS`: one source with CURSORS cursors, then SOURCES sources with
    /// one cursor each, every one sending a single frame and then nothing (a crashed tracker).
    static let script = #"""
import socket, sys, time
from pythonosc.osc_bundle_builder import OscBundleBuilder, IMMEDIATELY
from pythonosc.osc_message_builder import OscMessageBuilder
mode, port = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
def msg(*args):
    m = OscMessageBuilder(address="/tuio/2Dcur")
    for a in args: m.add_arg(a)
    return m.build()
def frame(source, cursors, fseq):
    b = OscBundleBuilder(IMMEDIATELY)
    b.add_content(msg("source", source))
    b.add_content(msg("alive", *[c[0] for c in cursors]))
    for (i, x, y) in cursors: b.add_content(msg("set", i, x, y, 0.0, 0.0, 0.0))
    b.add_content(msg("fseq", fseq))
    s.sendto(b.build().dgram, ("127.0.0.1", port))
if mode == "steady":
    end, f = time.time() + float(sys.argv[3]), 1
    while time.time() < end:
        frame("steady", [(1, 0.1 + (f % 100) / 200, 0.5)], f)
        f += 1
        time.sleep(1 / 60)
else:
    sources, cursors = int(sys.argv[3]), int(sys.argv[4])
    frame("big", [(i + 1, (i % 30) / 31 + 0.01, (i // 30) / 31 + 0.01) for i in range(cursors)], 1)
    for n in range(sources):
        frame(f"crashed-{n}", [(1, (n % 97) / 100, (n % 89) / 100)], 1)
        if n % 20 == 0: time.sleep(0.01)  # not faster than the socket buffer takes (UDP loses the rest)
print("sent", flush=True)
"""#

    @Test func aFloodOfSourcesAndCursorsIsCappedExpiresAndFramesKeepComing() async throws {
        let tmp = try TempDir("pb-hostile-tuio")
        let tuioIn = TUIOPeers.freeUDPPort()
        let serve = try ServeProcess.touchesOnly(in: tmp, inputs: """
            [[input]]
            kind = "tuio"
            listen = "127.0.0.1:\(tuioIn)"
            max_traces_per_source = 200
            source_timeout_s = 5
            """)
        #expect(await serve.waitForLog("web viewer", seconds: 15), "\(serve.log)")
        let script = tmp.url.appendingPathComponent("flood.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)

        let steady = Process()
        steady.executableURL = URL(fileURLWithPath: WSProbe.python)
        steady.arguments = [script.path, "steady", String(tuioIn), "9"]
        steady.standardOutput = FileHandle.nullDevice
        try steady.run()
        defer { if steady.isRunning { kill(steady.processIdentifier, SIGKILL) } }
        #expect(await eventually(5) { (try? await serve.pointers()) == 1 })

        // 1 steady + 600 of "big" (200 kept: max_traces_per_source) + 2,000 crashed sources of
        // 1 cursor each (62 kept: max_sources 64; of their cursors 55 kept: max_traces 256).
        let floodStart = Date()
        let flood = try await Helper.runAsync(WSProbe.python, [script.path, "flood", String(tuioIn), "2000", "600"])
        #expect(flood.stdout.contains("sent"), "\(flood.stderr)")
        #expect(await eventually(3) { (try? await serve.pointers()) == 256 }, "max_traces: 256 traces in all")
        func dropped(_ reason: String) async throws -> Double {
            try await serve.metric("percbridge_input_dropped_total{reason=\"\(reason)\"}") ?? 0
        }
        #expect(try await dropped("tuio_max_traces_per_source") == 600 - 200)
        // The last datagrams may still be in the socket when the traces are full.
        let sourcesDropped = await eventually(3) { (try? await dropped("tuio_max_sources")) == Double(2000 - 62) }
        let sourcesDroppedCount = (try? await dropped("tuio_max_sources")) ?? -1
        #expect(sourcesDropped, "64 sources: steady, big and 62 crashed; dropped \(sourcesDroppedCount)")
        #expect(try await dropped("tuio_max_traces") == 62 - 55)

        // Frames keep coming while and after the flood (counted on the service's own metric).
        let f0 = try #require(try await serve.metric("percbridge_frames_total"))
        try await Task.sleep(for: .seconds(1))
        let f1 = try #require(try await serve.metric("percbridge_frames_total"))
        #expect(f1 - f0 >= 30, "frames in the second after the flood: \(f1 - f0)")

        // The crashed sources and "big" go silent: after source_timeout_s (5 s here, so the
        // flood is over before its first sources expire) their cursors end.
        #expect(await eventually(10) { (try? await serve.pointers()) == 1 }, "only the steady tracker's cursor is left")
        // The last crashed sources sent last and kept no cursor (max_traces): they expire after
        // the last cursor has ended, so the count is waited for too.
        let expired = await eventually(3) { (try? await dropped("tuio_source_timeout")) == 63 }
        let expiredCount = (try? await dropped("tuio_source_timeout")) ?? -1
        #expect(expired, "63 sources expired (big and 62 crashed); counted \(expiredCount)")
        // A source slot freed is taken again.
        _ = try await Helper.runAsync(WSProbe.python, [script.path, "flood", String(tuioIn), "3", "2"])
        #expect(await eventually(3) { (try? await serve.pointers()) == 1 + 2 + 3 })
        let log = serve.log
        #expect(log.contains("input dropped by a bound") && log.contains("tuio_max_sources"), "\(log.suffix(2000))")
        let lines = log.components(separatedBy: "input dropped by a bound").count - 1
        #expect(Double(lines) <= Date().timeIntervalSince(floodStart) + 1, "at most one line a second: \(lines)")
        #expect(try await serve.terminate() == 0)
    }
}
