// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "meetupd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "meetupd", targets: ["meetupd"]),
        .library(name: "WebSocket", targets: ["WebSocket"]),
        .library(name: "Stomp", targets: ["Stomp"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
    ],
    targets: [
        .target(
            name: "WebSocket",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ]
        ),
        .target(
            name: "Stomp",
            dependencies: [
                "WebSocket",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The system libjpeg-turbo and libpng, for thumbnails (see the README's dependency table).
        .systemLibrary(name: "CLibJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CLibPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        // C wrappers that turn the two libraries' longjmp errors into return codes.
        .target(name: "ImageCodecs", dependencies: ["CLibJPEG", "CLibPNG"]),
        // Uploaded images: recognition by content, header parsing, metadata stripping, thumbnails.
        .target(name: "ImageFormats", dependencies: ["ImageCodecs"]),
        .target(
            name: "MeetCore",
            dependencies: [
                "ImageFormats",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the chat insert that binds its values itself (DirectlyBound).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                // Only to inflate the gzip-compressed gazetteer.
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            // The string tables live at the top level, `Resources/Localizable/<lang>.lproj`, where
            // translators and Xcode expect them; SwiftPM only takes resources from inside a
            // target's folder, so `Sources/MeetCore/Resources/Localizable` is a symlink to them.
            // Each `.lproj` is copied as it is (SwiftPM would copy the symlink itself, not what it
            // points to), landing at the bundle's root like in an Apple bundle; a new language
            // is one more line here. `Localizer` parses them at run time.
            // The gazetteer lives beside its build script in `Resources/Gazetteer`, reached the
            // same way through the symlink `Sources/MeetCore/Resources/Gazetteer`.
            exclude: ["Resources/Gazetteer/build_gazetteer.py"],
            resources: [
                .copy("Resources/Localizable/en.lproj"),
                .copy("Resources/Localizable/uk.lproj"),
                .copy("Activities/ActivityCatalog.tsv"),
                .copy("Resources/Gazetteer/gazetteer.tsv.gz"),
            ]
        ),
        .target(
            name: "MeetServer",
            dependencies: [
                "MeetCore", "Stomp", "WebSocket",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                // The change-log nudge socket (Unix domain).
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // The Nominatim geocoder's HTTP client (already built for HummingbirdTesting).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // Trusting an extra certificate on the push services' connections.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // Web pages people see (the shared-link page).
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            // The OpenAPI document is served from the bundle. SwiftPM bundles only files inside
            // the target and copies symlinks as they are, so the file lives here and
            // `docs/openapi.yaml`, where readers look for it, is a symlink to it.
            resources: [
                .copy("Resources/openapi.yaml"),
                .copy("Resources/config-schema.json"),
                .copy("Resources/link-page.mustache"),
                .copy("Resources/mail.html.mustache"),
                .copy("Resources/mail.txt.mustache"),
            ]
        ),
        // Seeds 100,000 meetings and times the feed through MeetingService: `swift run -c release FeedBenchmark`;
        // `FeedBenchmark seed-http` seeds a meetupd data directory for `Benchmarks/feed-load.sh` instead.
        .executableTarget(
            name: "FeedBenchmark",
            dependencies: ["MeetCore", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Benchmarks/FeedBenchmark"
        ),
        // The pure parts of HTTPLoad (request file, timetable, latency histogram), unit-tested.
        .target(name: "HTTPLoadCore", path: "Benchmarks/HTTPLoadCore"),
        // Open-loop HTTP/1.1 load generator on NIO: `HTTPLoad --port P --requests FILE --rate 1000`.
        .executableTarget(
            name: "HTTPLoad",
            dependencies: [
                "HTTPLoadCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/HTTPLoad"
        ),
        // The REST anchor: Hummingbird's hello world, measured beside the feed (`Benchmarks/feed-load.sh`).
        .executableTarget(
            name: "HelloWorld",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Benchmarks/HelloWorld"
        ),
        .executableTarget(
            name: "meetupd",
            dependencies: [
                "MeetServer", "MeetCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .target(name: "FuzzDriver", path: "Tests/Fuzz/FuzzDriver"),
        .executableTarget(
            name: "StompFuzz",
            dependencies: ["Stomp", "FuzzDriver", .product(name: "NIOCore", package: "swift-nio")],
            path: "Tests/Fuzz/StompFuzz",
            exclude: ["corpus"]
        ),
        .executableTarget(
            name: "ImageHeaderFuzz",
            dependencies: ["ImageFormats", "FuzzDriver"],
            path: "Tests/Fuzz/ImageHeaderFuzz",
            exclude: ["corpus"]
        ),
        .executableTarget(
            name: "StompBenchmarks",
            dependencies: [
                "Stomp",
                "WebSocket",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/StompBenchmarks"
        ),
        .executableTarget(
            name: "WebSocketFrameFuzz",
            dependencies: ["WebSocket", "FuzzDriver", .product(name: "NIOCore", package: "swift-nio")],
            path: "Tests/Fuzz/WebSocketFrameFuzz"
        ),
        .executableTarget(
            name: "WebSocketBenchmark",
            dependencies: ["WebSocket", .product(name: "NIOCore", package: "swift-nio")],
            path: "Benchmarks/WebSocketBenchmark"
        ),
        .testTarget(
            name: "WebSocketTests",
            dependencies: [
                "WebSocket",
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "StompTests",
            dependencies: ["Stomp", "WebSocket", .product(name: "NIOEmbedded", package: "swift-nio")]
        ),
        .testTarget(
            name: "MeetCoreTests",
            dependencies: [
                "MeetCore", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .testTarget(name: "HTTPLoadCoreTests", dependencies: ["HTTPLoadCore"]),
        .testTarget(
            name: "MeetServerTests",
            dependencies: [
                "MeetServer", "MeetCore", "Stomp",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
