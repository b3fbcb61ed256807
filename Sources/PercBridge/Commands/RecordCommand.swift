// `percbridge record FILE`: records every input from the given sources, with frame ticks, as JSON Lines.
import ArgumentParser
import Foundation
import MTKTangibles
import PercInput
import PercRuntime

struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record touch inputs and frame ticks to a file that `percbridge replay` reproduces.",
        discussion: """
        Listens on the sources you name, runs the frame clock, and writes every contact \
        update and every frame tick (docs/recording-format.md) until --duration ends or you \
        press Ctrl-C. Send us the file with a bug report: replay reproduces it bit for bit. \
        The running service records the same way with `percbridge serve --record FILE`.

        Examples:
          percbridge record session.jsonl --tuio 3333 --duration 30
          percbridge record session.jsonl --evdev /dev/input/event5 --surface 476x268
          percbridge record demo.jsonl --recording "EP0430M09.2-finger-scroll-down.events" --definitions tangibles.json
        """
    )

    @Argument(help: "The recording to write (JSON Lines).") var output: String
    @Option(help: "Listen for TUIO 1.1/2.0 on this UDP port.") var tuio: Int?
    @Option(name: .customLong("json-tcp"), help: "Accept the MTK JSON touch feed on this TCP port.") var jsonTCP: Int?
    @Option(name: .customLong("json-udp"), help: "Accept JSON touch messages on this UDP port.") var jsonUDP: Int?
    @Option(help: "Bind address for TUIO/JSON listeners.") var host = "127.0.0.1"
    @Option(help: "Read this touchscreen (repeatable).") var evdev: [String] = []
    @Option(help: "Play this evemu/libinput recording as an input.") var recording: String?
    @Option(help: "Surface size in mm, WIDTHxHEIGHT (TUIO needs it; evdev uses it over the axis resolution).") var surface = "1018x573"
    @Option(help: "Frame rate in Hz.") var rate = 120.0
    @Option(help: "Stop after this many seconds (default: until Ctrl-C, or the end of --recording).") var duration: Double?
    @Option(help: "A JSON file with an array of tangible definitions to store for replay.") var definitions: String?

    func run() async throws {
        guard let size = SurfaceSizeParser.parse(surface) else { throw ValidationError("--surface must look like 1018x573 (mm)") }
        var sources: [any InputSource] = []
        if let tuio { sources.append(UDPTUIOSource(host: host, port: tuio, surfaceSize: size)) }
        if let jsonTCP { sources.append(JSONInputSource(transport: .tcp, host: host, port: jsonTCP, surfaceSize: size)) }
        if let jsonUDP { sources.append(JSONInputSource(transport: .udp, host: host, port: jsonUDP, surfaceSize: size)) }
        for node in evdev { sources.append(EvdevInputSource(path: node, surfaceSize: size)) }
        if let recording {
            do { sources.append(try RecordingInputSource(path: recording, surfaceSize: size)) } catch let e as RecordingError { throw CLIError.reading(recording, e.description) }
        }
        guard !sources.isEmpty else { throw ValidationError("name at least one source: --tuio, --json-tcp, --json-udp, --evdev or --recording") }
        var defs: [TangibleDefinition] = []
        if let definitions {
            guard let data = FileManager.default.contents(atPath: definitions) else {
                throw CLIError(.noInput, "--definitions \(definitions): no such file or not readable")
            }
            guard let d = try? JSONDecoder().decode([TangibleDefinition].self, from: data) else {
                throw CLIError(.dataError, "\(definitions): expected a JSON array of tangible definitions")
            }
            defs = d
        }
        let header = RecordingHeader(writer: "percbridge 0.1.0 record", surface: size, clock: "fixed", rateHz: rate, sources: sources.map(\.name))
        let recorder: Recorder
        do { recorder = try Recorder(path: output, header: header) } catch let e as RecordingError { throw CLIError(.cannotCreate, e.description) }
        if !defs.isEmpty { recorder.record(definitions: defs) }
        let clock = FrameClock(mode: .fixedRate(hz: rate), recorder: recorder)
        clock.start()
        let onlyRecording = sources.allSatisfy { $0 is RecordingInputSource }
        await withTaskGroup(of: Void.self) { group in
            for s in sources {
                group.addTask {
                    do { try await s.run { clock.add(contacts: $0) } } catch {
                        FileHandle.standardError.write(Data("\(s.name): \(error)\n".utf8))
                    }
                }
            }
            if let duration {
                group.addTask { try? await Task.sleep(for: .seconds(duration)) }
                _ = await group.next()
                group.cancelAll()
            } else if onlyRecording {
                await group.waitForAll()
                try? await Task.sleep(for: .milliseconds(50)) // let the last frame tick
            } else {
                await group.waitForAll()
            }
        }
        clock.stop()
        recorder.close()
        for s in sources where s.badInput.total > 0 {
            FileHandle.standardError.write(Data("\(s.name): bad input: \(s.badInput)\n".utf8))
        }
        if let e = recorder.writeError { throw CLIError(.cannotCreate, "writing \(output) failed: \(e)") }
        print("recorded \(recorder.entryCount) entries to \(output)")
    }
}
