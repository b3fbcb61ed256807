// Every thread we name keeps its name: named from inside the thread (ThreadName), in 15 bytes at most.
import Foundation
import Testing
import PercTestSupport

/// Foundation's `Thread.name` set before `start()` never reached the kernel, and Linux
/// refuses a name of 16 bytes or more whole: serve's frame thread showed up as
/// "oot.default-qos" in `top -H`, perf and /proc. Benchmarks and people find threads by name.
@Suite struct ThreadNameRuleTests {
    @Test func threadsAreNamedFromInsideInFifteenBytes() throws {
        let root = Helper.repo.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        var named = 0
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                #expect(!(code.contains("hread") && code.contains(".name = \"")) && !code.contains("t.name = \""),
                        "Sources/\(file): `\(code.trimmingCharacters(in: .whitespaces))` does not reach the kernel; call ThreadName.setCurrent inside the thread")
                guard let open = code.range(of: "ThreadName.setCurrent(\""), let close = code[open.upperBound...].firstIndex(of: "\"") else { continue }
                let name = code[open.upperBound..<close]
                named += 1
                #expect(name.utf8.count <= 15, "Sources/\(file): thread name \"\(name)\" has \(name.utf8.count) bytes; Linux keeps 15 at most")
            }
        }
        #expect(named >= 3, "the thread names were found")
    }

    @Test func aServeFrameThreadIsFoundByItsName() async throws {
        // The name really reaches the kernel: serve's frame thread is in /proc as pb-frame-clock.
        let tmp = try TempDir("pb-thread-name")
        let serve = try ServeProcess.touchesOnly(in: tmp)
        #expect(await serve.waitForLog("web viewer", seconds: 15), "\(serve.log)")
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(serve.pid)/task")
        let names = tasks.compactMap { try? String(contentsOfFile: "/proc/\(serve.pid)/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(names.contains("pb-frame-clock"), "serve's threads: \(names.sorted())")
        // The web server's one loop thread, which writes the frames to the apps (WebEventLoop).
        #expect(names.filter { $0 == "pb-web" }.count == 1, "serve's threads: \(names.sorted())")
        // Logged after "percbridge serving", once the input loop exists: waited for, not raced.
        #expect(await serve.waitForLog("thread scheduling:", seconds: 15), "\(serve.log)")
        #expect(serve.log.contains("app output SCHED_FIFO") || serve.log.contains("app output ordinary ("), "\(serve.log)")
        #expect(try await serve.terminate() == 0)
    }
}
