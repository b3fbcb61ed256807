// The walls of docs/architecture.md: each module imports only the modules it may know, and the
// product binary carries nothing of the benchmarks, the test peers or the test harness.
import Foundation
import Testing
import PercTestSupport

@Suite struct ModuleWallsTests {
    /// Our modules each module may import (docs/architecture.md); anything of ours not listed is a breach.
    static let allowed: [String: Set<String>] = [
        "MTKTangibles": [],
        "MTKSimulator": ["MTKTangibles"],
        "LightCheck": ["MTKTangibles"],
        "FrameCore": ["MTKTangibles", "LightCheck"],
        "LightCheckRig": ["LightCheck", "MTKTangibles", "MTKSimulator"],
        "PercSystem": ["CDBus"],
        "PercBlueZ": ["PercSystem", "MTKTangibles"],
        "PercInput": ["PercSystem", "MTKTangibles"],
        // The service, in layers: the runtime knows nothing of the web server, the control API or
        // diagnosis, and those three know nothing of each other (each asks for what it needs
        // through a protocol of its own); PercService (the composition roots) is the only module
        // that knows them all, so they build side by side.
        "PercRuntime": ["PercSystem", "PercBlueZ", "PercInput", "MTKTangibles", "MTKSimulator", "LightCheck", "FrameCore"],
        "PercDiagnose": ["PercRuntime", "PercSystem", "PercBlueZ", "PercInput", "MTKTangibles", "LightCheck"],
        "PercWeb": ["PercRuntime", "PercSystem", "PercInput", "MTKTangibles"],
        "PercControl": ["PercRuntime", "PercSystem", "PercBlueZ", "PercInput", "MTKTangibles", "MTKSimulator", "LightCheck"],
        "PercService": ["PercRuntime", "PercDiagnose", "PercWeb", "PercControl", "PercSystem", "PercBlueZ", "PercInput",
                        "MTKTangibles", "MTKSimulator", "LightCheck"],
        "PercBridge": ["PercSystem", "PercBlueZ", "PercInput", "PercRuntime", "PercDiagnose", "PercControl", "PercService",
                       "MTKTangibles", "MTKSimulator"],
        "PercEmulator": ["PercSystem", "PercBlueZ", "PercInput", "MTKTangibles"],
        "PercBench": ["PercSystem", "PercBlueZ", "PercInput", "PercRuntime", "PercWeb", "PercControl", "PercEmulator", "MTKTangibles", "MTKSimulator", "LightCheck", "LightCheckRig", "FrameCore"],
        // percbridge-overlay: the X11 layer, the protocol client (knows nothing of X or the service's code), the executable.
        "PercOverlay": ["CXCB"],
        "PercOverlayClient": [],
        "PercOverlayTool": ["PercOverlay", "PercOverlayClient"],
    ]
    static let ours: Set<String> = Set(allowed.keys).union(["CDBus", "CXCB", "PercTestSupport", "WebEmbedTool"])
    /// Command-line parsing belongs to the executables.
    static let executablesOnly: Set<String> = ["ArgumentParser"]

    /// `import X` lines of one module's sources, as (file, X).
    static func imports(of module: String) throws -> [(String, String)] {
        let root = Helper.repo.appendingPathComponent("Sources/\(module)")
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
        return try files.filter { $0.hasSuffix(".swift") }.flatMap { file in
            try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8).split(separator: "\n").compactMap { line in
                let words = line.split(separator: " ")
                guard let i = words.firstIndex(of: "import"), i + 1 < words.count,
                      words[..<i].allSatisfy({ $0.hasPrefix("@") }) else { return nil }
                return ("\(module)/\(file)", String(words[i + 1]))
            }
        }
    }

    @Test(arguments: allowed.keys.sorted())
    func aModuleImportsOnlyWhatItMayKnow(_ module: String) throws {
        let found = try Self.imports(of: module)
        #expect(!found.isEmpty, "no sources read for \(module)")
        let executable = ["PercBridge", "PercBench", "PercOverlayTool"].contains(module)
        for (file, imported) in found {
            if Self.ours.contains(imported) {
                #expect(Self.allowed[module]!.contains(imported), "\(file) imports \(imported), which \(module) may not know")
            }
            if !executable {
                #expect(!Self.executablesOnly.contains(imported), "\(file) imports \(imported), which only the executables use")
            }
        }
    }

    @Test func theWallCheckSeesABreach() throws {
        // The check itself: PercRuntime does import PercBlueZ, which PercInput may not know.
        let service = try Self.imports(of: "PercRuntime").map(\.1)
        #expect(service.contains("PercBlueZ") && !Self.allowed["PercInput"]!.contains("PercBlueZ"))
    }

    @Test func theProductBinaryCarriesNoBenchmarkOrTestCode() async throws {
        let nm = try await Helper.runAsync("/usr/bin/nm", ["--defined-only", CLI.binary.path], timeout: 60)
        #expect(nm.status == 0, "\(nm.stderr)")
        let symbols = nm.stdout
        // Swift mangles a module name as its length and its name.
        #expect(symbols.contains("10PercSystem") && symbols.contains("11PercService") && symbols.contains("11PercRuntime"), "the symbols were read")
        for module in ["PercBench", "PercEmulator", "PercTestSupport", "PercOverlay", "PercOverlayClient", "LightCheckRig"] {
            #expect(!symbols.contains("\(module.count)\(module)"), "percbridge links \(module)")
        }
    }

    /// The service runs on headless tables: only percbridge-overlay links the X libraries.
    @Test func onlyTheOverlayLinksX() async throws {
        let service = try await Helper.runAsync("/usr/bin/ldd", [CLI.binary.path], timeout: 60)
        #expect(service.status == 0 && service.stdout.contains("libdbus-1"), "\(service.stdout)\(service.stderr)")
        #expect(!service.stdout.contains("libxcb"), "percbridge links X: \(service.stdout)")
        let overlay = CLI.binary.deletingLastPathComponent().appendingPathComponent("percbridge-overlay")
        let o = try await Helper.runAsync("/usr/bin/ldd", [overlay.path], timeout: 60)
        #expect(o.stdout.contains("libxcb-shape") && !o.stdout.contains("libdbus-1"), "\(o.stdout)\(o.stderr)")
    }
}
