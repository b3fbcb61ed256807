// swift-tools-version: 6.1
// PercBridge: PERC tangibles on any multi-touch table (see README.md and docs/).
import PackageDescription

let package = Package(
    name: "PercBridge",
    products: [
        .executable(name: "percbridge", targets: ["PercBridge"]),
        .executable(name: "percbridge-bench", targets: ["PercBench"]),
        .executable(name: "percbridge-overlay", targets: ["PercOverlayTool"]),
        .library(name: "MTKTangibles", targets: ["MTKTangibles"]),
        .library(name: "LightCheck", targets: ["LightCheck"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // The only C edge: libdbus-1 and libsystemd (sd-daemon, sd-journal, sd-device).
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev", "libsystemd-dev", "pkg-config"])]
        ),
        // The X11 edge of `percbridge overlay` only: xcb with SHAPE, Present and RandR. Never linked
        // into the service binary.
        .systemLibrary(
            name: "CXCB",
            pkgConfig: "xcb xcb-shape xcb-present xcb-randr",
            providers: [.apt(["libxcb1-dev", "libxcb-shape0-dev", "libxcb-present-dev", "libxcb-randr0-dev", "pkg-config"])]
        ),
        // The Wayland edge of `percbridge overlay` only: libwayland-client. Never linked into the service binary.
        .systemLibrary(
            name: "CWayland",
            pkgConfig: "wayland-client",
            providers: [.apt(["libwayland-dev", "pkg-config"])]
        ),
        // wayland-scanner's glue for the protocols beyond the core (layer shell, presentation time;
        // xdg-shell and virtual pointer for the tests' clients), committed: SwiftPM cannot run the
        // scanner (scripts/gen-wayland-protocols regenerates it from protocols/).
        .target(name: "CWaylandProtocols", dependencies: ["CWayland"], exclude: ["protocols"]),
        // Pure and deterministic: no I/O, no clock reads.
        .target(name: "MTKTangibles"),
        .target(name: "LightCheck", dependencies: ["MTKTangibles"]),
        // The simulated table (hardware model, scenarios, seeded placements): `demo`, the
        // benchmarks and the tests. Pure and deterministic like MTKTangibles.
        .target(name: "MTKSimulator", dependencies: ["MTKTangibles"]),
        // The frame loop, written once: the engine's step, the light-check planner's, outcomes fed
        // back; and a simulated table that presents the overlay to the simulator. Pure.
        .target(name: "FrameCore", dependencies: ["MTKTangibles", "LightCheck"]),
        // Not in the product: the closed loop of a planner against the simulator (tests, benchmarks).
        .target(name: "LightCheckRig", dependencies: ["LightCheck", "MTKTangibles", "MTKSimulator"]),
        // Build time only: clients/js/*.js into the binary (served at /percbridge.js, /viewer.js).
        .executableTarget(name: "WebEmbedTool"),
        .plugin(name: "WebEmbedPlugin", capability: .buildTool(), dependencies: ["WebEmbedTool"]),
        // The C edge and the machine: the D-Bus binding over libdbus-1, sd-journal/sd-notify,
        // sd-device, POSIX clocks and limits. Knows nothing of PERCs, BlueZ or touches.
        .target(
            name: "PercSystem",
            dependencies: [
                "CDBus",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // BlueZ over D-Bus and the two PERC profiles (GATT v1, MTK serial): scan, pair, links.
        .target(
            name: "PercBlueZ",
            dependencies: [
                "PercSystem", "MTKTangibles",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Touches from outside: evdev (sd-device), TUIO/OSC over UDP, JSON contacts, recordings.
        .target(
            name: "PercInput",
            dependencies: [
                "PercSystem", "MTKTangibles",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // The service's runtime: frame clock and ticker, the pipeline and its engine core, config,
        // the tangible registry, PERC links (ServiceLinks), outputs (TUIO), recording and replay,
        // logging and metrics. Knows nothing of the web server, the control API or diagnosis.
        .target(
            name: "PercRuntime",
            dependencies: [
                "PercSystem", "PercBlueZ", "PercInput", "MTKTangibles", "MTKSimulator", "LightCheck", "FrameCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // Diagnosis: live figures from the pipeline's steps, the light test, recordings
        // diagnosed, the report (text, HTML) and the settings it suggests.
        .target(
            name: "PercDiagnose",
            dependencies: [
                "PercRuntime", "PercSystem", "PercBlueZ", "PercInput", "MTKTangibles", "LightCheck",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The web server: the app protocol over WebSocket (AppHub), the viewer and the JS client,
        // metrics and diagnostics routes, the request guards (Origin, Host, token, limits).
        .target(
            name: "PercWeb",
            dependencies: [
                "PercRuntime", "PercSystem", "PercInput", "MTKTangibles",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            plugins: ["WebEmbedPlugin"]
        ),
        // The control API on D-Bus (net.percbridge.Control1): its server, its client for the
        // CLI, and the demo's links and registry behind it.
        .target(
            name: "PercControl",
            dependencies: [
                "PercRuntime", "PercSystem", "PercBlueZ", "PercInput", "MTKTangibles", "MTKSimulator", "LightCheck",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The composition roots: `serve` and `demo` put the runtime, the web server, the control
        // API and diagnosis together.
        .target(
            name: "PercService",
            dependencies: [
                "PercRuntime", "PercDiagnose", "PercWeb", "PercControl",
                "PercSystem", "PercBlueZ", "PercInput", "MTKTangibles", "MTKSimulator", "LightCheck",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // `percbridge overlay`: light-check patches drawn over the table's app (X11 through xcb, or a
        // Wayland layer-shell surface), click-through, with presentation times.
        .target(
            name: "PercOverlay",
            dependencies: [
                "CXCB", "CWayland", "CWaylandProtocols",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The overlay's side of the app protocol: what to draw and report (pure), the screen
        // mapping, the WebSocket connection (swift-nio). Knows nothing of X or of the service's code.
        .target(
            name: "PercOverlayClient",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        // `percbridge-overlay`: the X11 overlay and its client, its own binary so that `percbridge`
        // links no X library (`percbridge overlay` hands over to it).
        .executableTarget(
            name: "PercOverlayTool",
            dependencies: [
                "PercOverlay", "PercOverlayClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `percbridge` executable: the commands (options, messages, exit codes); `serve` and
        // `demo` hand over to PercService's ServiceRoot.
        .executableTarget(
            name: "PercBridge",
            dependencies: [
                "PercSystem", "PercBlueZ", "PercInput", "PercRuntime", "PercDiagnose", "PercControl", "PercService",
                "MTKTangibles", "MTKSimulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Not in the product: the test peers shared by the tests and the benchmarks: the BlueZ
        // emulator (python-dbusmock) started and steered, a umockdev touchscreen.
        .target(
            name: "PercEmulator",
            dependencies: [
                "PercSystem", "PercBlueZ", "PercInput", "MTKTangibles",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `percbridge-bench`: the benchmarks (engine, light checks, inputs, the whole service).
        .executableTarget(
            name: "PercBench",
            dependencies: [
                "PercSystem", "PercBlueZ", "PercInput", "PercRuntime", "PercWeb", "PercControl", "PercEmulator",
                "MTKTangibles", "MTKSimulator", "LightCheck", "LightCheckRig", "FrameCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "MTKTangiblesTests", dependencies: ["MTKTangibles", "MTKSimulator"]),
        .testTarget(name: "LightCheckTests", dependencies: ["LightCheck", "LightCheckRig", "MTKTangibles", "MTKSimulator", "FrameCore"]),
        // Test harness shared by the test targets (private dbus-daemon, processes ended by pid,
        // the BlueZ emulator testbed, probes, fixtures); never linked into a product.
        .target(
            name: "PercTestSupport",
            dependencies: [
                "PercSystem", "PercBlueZ", "PercInput", "PercRuntime", "PercDiagnose", "PercWeb", "PercControl", "PercEmulator", "MTKTangibles",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/PercTestSupport",
            exclude: ["Fixtures/evemu-devices", "Fixtures/libinput-record", "Fixtures/README.md"]
        ),
        .testTarget(name: "PercSystemTests", dependencies: ["PercSystem", "PercTestSupport"]),
        .testTarget(name: "PercBlueZTests", dependencies: ["PercBlueZ", "PercSystem", "PercEmulator", "PercTestSupport", "MTKTangibles"]),
        .testTarget(name: "PercInputTests", dependencies: ["PercInput", "PercSystem", "PercEmulator", "PercTestSupport", "MTKTangibles"]),
        .testTarget(name: "PercServiceTests", dependencies: [
            "PercRuntime", "PercDiagnose", "PercWeb", "PercControl", "PercService", "PercSystem", "PercBlueZ", "PercInput", "PercEmulator", "PercTestSupport", "MTKTangibles", "LightCheck",
            "FrameCore", "MTKSimulator",
        ]),
        // Through the `percbridge` binary, as a user runs it.
        .testTarget(name: "PercBridgeTests", dependencies: [
            "PercBridge", "PercOverlayTool", "PercRuntime", "PercDiagnose", "PercWeb", "PercControl", "PercSystem", "PercBlueZ", "PercInput", "PercEmulator", "PercTestSupport",
            "MTKTangibles", "MTKSimulator", "LightCheck",
        ]),
        .testTarget(name: "PercOverlayTests", dependencies: [
            "PercOverlay", "PercTestSupport", "CWayland", "CWaylandProtocols", "PercOverlayClient",
        ]),
        .testTarget(name: "PercOverlayClientTests", dependencies: ["PercOverlayClient"]),
        .testTarget(name: "PercBenchTests", dependencies: ["PercBench", "PercEmulator", "PercTestSupport", "PercRuntime", "PercDiagnose", "PercWeb", "PercControl", "PercSystem", "MTKTangibles", "MTKSimulator"]),
    ],
    swiftLanguageModes: [.v6]
)
