// `percbridge input …`: inspect touch recordings, list this machine's touchscreens, watch one live.
import ArgumentParser
import Foundation
import Logging
import MTKTangibles
import PercInput
import PercSystem

struct InputCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "input",
        abstract: "Diagnose touch inputs: recordings, touchscreens, live contacts.",
        discussion: """
        Examples:
          percbridge input inspect "Atmel maXTouch Touchscreen.2-fingers-touch-release.events"
          percbridge input inspect old.events --desc "ELAN CANDO Windows7.desc" --json
          percbridge input inspect touch.yml --surface 476x268      # libinput record file
          percbridge input list
          percbridge input list --follow --json
          percbridge input watch /dev/input/event5 --idle-timeout 10
        """,
        subcommands: [Inspect.self, List.self, Watch.self]
    )

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what a recording holds: device, duration, contacts, most at once, each contact's path.",
            discussion: """
            Reads evemu-record files (with or without their header: a headerless .events file \
            needs its .desc, found beside it as NAME.desc or given with --desc) and libinput \
            record YAML. Positions are in mm when the device reports a resolution or you give \
            --surface; otherwise in device units (the output says which). Malformed lines are \
            counted and listed with the first place each kind occurred.
            """
        )
        @Argument(help: "The recording (.events, .yml).") var file: String
        @Option(help: "The device description for a headerless evemu file.") var desc: String?
        @Option(help: "Surface size in mm, WIDTHxHEIGHT (overrides the axis resolution).") var surface: String?
        @Flag(help: "Print JSON instead of text.") var json = false

        func run() throws {
            var size: Vec2?
            if let surface {
                guard let s = SurfaceSizeParser.parse(surface) else { throw ValidationError("--surface must look like 1018x573 (mm)") }
                size = s
            }
            let rec: EvdevRecording
            do { rec = try RecordingLoader.load(path: file, descPath: desc) } catch { throw CLIError.reading(file, error.description) }
            let report = RecordingReport(RecordingDecoder.decode(rec, surfaceSize: size))
            print(json ? report.json() : report.text())
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the touchscreens on this machine (udev: ID_INPUT_TOUCHSCREEN=1).",
            discussion: """
            Uses libsystemd's sd-device. Devices udev has not initialised are listed with --uninitialized. \
            --follow then prints each touchscreen udev reports plugged in or removed (sd-device \
            monitor), one line each (JSON Lines with --json), until Ctrl-C or --duration.
            """
        )
        @Flag(help: "Also list devices udev has not initialised (containers, umockdev).") var uninitialized = false
        @Flag(help: "Print JSON instead of text.") var json = false
        @Flag(help: "Instead of listing, print touchscreens as they are plugged in or removed.") var follow = false
        @Option(help: "With --follow: stop after this many seconds.") var duration: Double?

        func run() throws {
            if follow {
                try TouchscreenFollower.run(json: json, duration: duration)
                return
            }
            let found = try SDDevice.touchscreens(allowUninitialized: uninitialized)
            if json {
                let e = JSONEncoder(); e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try e.encode(found), as: UTF8.self))
            } else if found.isEmpty {
                print("""
                No touchscreens found: udev reports no input device with ID_INPUT_TOUCHSCREEN=1.
                Check that the touchscreen is connected (`udevadm info /dev/input/eventN`), or use a
                TUIO or JSON input instead (see docs/inputs.md).
                """)
            } else {
                for t in found { print("\(t.devnode)\t\(t.name)") }
            }
        }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open a touchscreen and print its contacts as they happen.",
            discussion: """
            Prints the device description from its ioctls, then one line per contact update \
            (phase, id, position in mm, kernel time). Ends on Ctrl-C, when the device goes \
            away, after --idle-timeout seconds without events, or after --max-updates.
            """
        )
        @Argument(help: "The event node, e.g. /dev/input/event5.") var node: String
        @Option(help: "Surface size in mm, WIDTHxHEIGHT.") var surface: String?
        @Option(help: "Stop after this many seconds without events.") var idleTimeout: Double?
        @Option(help: "Stop after this many contact updates.") var maxUpdates: Int?
        @Flag(help: "Grab the device exclusively while watching.") var grab = false
        @Flag(help: "Print JSON Lines instead of text.") var json = false

        func run() async throws {
            let size = try surface.map { (s: String) throws -> Vec2 in
                guard let v = SurfaceSizeParser.parse(s) else { throw ValidationError("--surface must look like 1018x573 (mm)") }
                return v
            }
            let source = EvdevInputSource(path: node, surfaceSize: size, grab: grab, idleTimeout: idleTimeout)
            let printer = UpdatePrinter(json: json, max: maxUpdates)
            let task = Task {
                try await source.run { updates in printer.print(updates) }
            }
            printer.onLimit.set { task.cancel() }
            do { try await task.value } catch let e as EvdevDevice.Failure { throw CLIError(.noInput, e.description) }
            if let d = source.device.description {
                FileHandle.standardError.write(Data("device: \(d.name), protocol \(d.mtProtocol.rawValue), \(d.slotCount) slots, clock \(source.device.monotonic ? "monotonic" : "realtime (shifted)")\n".utf8))
            }
            let bad = source.badInput
            if bad.total > 0 { FileHandle.standardError.write(Data("bad input: \(bad)\n".utf8)) }
            FileHandle.standardError.write(Data("\(printer.count) contact updates\n".utf8))
        }
    }
}
