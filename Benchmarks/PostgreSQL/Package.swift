// swift-tools-version:6.1
import Foundation
import PackageDescription

// OpenCoreData's PostgreSQL benchmarks (issue 35): the PostgreSQL store engine against raw
// postgres-nio queries and against Fluent, in one process run. A package of its own, beside
// OpenCoreData's rather than in it, so that postgres-nio, SwiftNIO and Fluent (several minutes
// of clean build) never enter OpenCoreData's build, its CI or its users' dependency graphs.
//
//   cd Benchmarks/PostgreSQL && swift run -c release OpenCoreDataPostgreSQLBenchmarks --help
//
// Dependencies, and why each one:
// - OpenCoreData (this repository, by path): the code under measurement.
// - postgres-nio: the maintained Swift PostgreSQL client, the "raw" contender: hand-written
//   SQL, prepared statements, rows decoded into structs (what an app writes without an ORM).
// - fluent-kit + fluent-postgres-driver: Fluent, Vapor's ORM, the server-side Swift peer an
//   OpenCoreData user would otherwise pick.

/// A path dependency's identity is its folder's name, which is the clone's, whatever it is.
let rootIdentity = URL(fileURLWithPath: Context.packageDirectory)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "OpenCoreDataPostgreSQLBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/vapor/fluent-kit", from: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver", from: "2.14.0"),
    ],
    targets: [
        .executableTarget(
            name: "OpenCoreDataPostgreSQLBenchmarks",
            dependencies: [
                .product(name: "OpenCoreData", package: rootIdentity),
                .product(name: "OpenCoreDataPostgreSQL", package: rootIdentity),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
            ]
        )
    ]
)
