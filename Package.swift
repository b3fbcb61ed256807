// swift-tools-version: 6.1
// PercBridge: PERC tangibles on any multi-touch table (see README.md and docs/).
import PackageDescription

let package = Package(
    name: "PercBridge",
    products: [
        .executable(name: "percbridge", targets: ["PercBridge"]),
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
        // Pure and deterministic: no I/O, no clock reads.
        .target(name: "MTKTangibles"),
        .target(name: "LightCheck", dependencies: ["MTKTangibles"]),
        // Build time only: clients/js/*.js into the binary (served at /percbridge.js, /viewer.js).
        .executableTarget(name: "WebEmbedTool"),
        .plugin(name: "WebEmbedPlugin", capability: .buildTool(), dependencies: ["WebEmbedTool"]),
        .executableTarget(
            name: "PercBridge",
            dependencies: [
                "CDBus", "MTKTangibles", "LightCheck",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Yams", package: "Yams"),
            ],
            plugins: ["WebEmbedPlugin"]
        ),
        .testTarget(name: "MTKTangiblesTests", dependencies: ["MTKTangibles"]),
        .testTarget(name: "LightCheckTests", dependencies: ["LightCheck", "MTKTangibles"]),
        .testTarget(name: "PercBridgeTests", dependencies: ["PercBridge", "MTKTangibles", "LightCheck"]),
    ],
    swiftLanguageModes: [.v6]
)
