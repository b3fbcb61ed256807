// The tangible registry: lookups, and atomic saves that survive kill -9 at any moment.
import Foundation
import MTKTangibles
import Testing
@testable import PercRuntime
import PercTestSupport

@Suite struct RegistryStoreTests {
    func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-registry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func savedRegistryLoadsBackEqual() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = RegistryStore(path: dir.appendingPathComponent("tangibles.json").path)
        #expect(try store.load().tangibles.isEmpty)
        var r = TangibleRegistry()
        let a = try r.add(.standardPerc(id: 0, name: "red", address: "AA:BB:CC:DD:EE:01"))
        let b = try r.add(.standardPerc(id: 0, name: "blue", address: "AA:BB:CC:DD:EE:02"))
        #expect(a.id == 1 && b.id == 2)
        try store.save(r)
        #expect(try store.load() == r)
    }

    @Test func findsByIdNameAndAddressAndRefusesDuplicates() throws {
        var r = TangibleRegistry()
        _ = try r.add(.standardPerc(id: 0, name: "red", address: "AA:BB:CC:DD:EE:01"))
        #expect(r.find("1")?.name == "red")
        #expect(r.find("red")?.id == 1)
        #expect(r.find("aa:bb:cc:dd:ee:01")?.id == 1)
        #expect(throws: TangibleRegistry.LookupError.self) { try r.add(.standardPerc(id: 0, name: "red")) }
        #expect(throws: TangibleRegistry.LookupError.self) {
            try r.add(.standardPerc(id: 0, name: "green", address: "AA:BB:CC:DD:EE:01"))
        }
        #expect(try r.forget("red").id == 1)
        #expect(r.tangibles.isEmpty)
    }

    @Test func brokenFileIsAnErrorNotAnEmptyRegistry() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("tangibles.json").path
        try Data("{\"version\": 1, \"tangibles\": [".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: RegistryStore.LoadError.self) { try RegistryStore(path: path).load() }
    }

    /// A writer rewrites the registry in a loop and is killed with SIGKILL at random moments;
    /// each time, the file must decode and hold one whole generation.
    @Test func killNineAtAnyMomentLeavesAWholeRegistry() async throws {
        let dir = try tempDir()
        let problems = try await offPool { try Self.killLoop(dir) }
        #expect(problems.isEmpty, "\(problems)")
    }

    /// Runs off the test's task (blocking waits), so it returns problems instead of recording them.
    static func killLoop(_ dir: URL) throws -> [String] {
        var problems: [String] = []
        func check(_ ok: Bool, _ message: @autoclosure () -> String = "check failed") {
            if !ok { problems.append(message()) }
        }
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("tangibles.json").path
        var generator = SystemRandomNumberGenerator()
        var generationsSeen = Set<String>()
        for _ in 0..<25 {
            let p = Process()
            p.executableURL = CLI.binary
            p.arguments = ["config", "registry-writer", path]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            let pid = p.processIdentifier
            defer { if p.isRunning { kill(pid, SIGKILL); p.waitUntilExit() } }
            usleep(UInt32.random(in: 50_000...300_000, using: &generator))
            kill(pid, SIGKILL)
            p.waitUntilExit()
            check(p.terminationReason == .uncaughtSignal)
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let registry = try RegistryStore(path: path).load()
            let generations = Set(registry.tangibles.map { $0.name.split(separator: "-")[1] })
            check(generations.count == 1, "a torn registry mixes generations \(generations)")
            if let g = generations.first {
                let n = Int(g)!
                check(registry.tangibles.count == 1 + n % 150)
                generationsSeen.insert(String(g))
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
            check(leftovers.isEmpty, "load() removes a killed writer's temp files")
        }
        check(generationsSeen.count > 1, "the writer made progress between kills")
        return problems
    }
}
