// swift-tools-version:6.1
import CompilerPluginSupport
import PackageDescription

// Dependencies, and why each one:
// - GRDB.swift: the reference SQLite toolkit for Swift. OpenCoreData's SQLite store
//   talks to SQLite through GRDB's `Database`/`Statement` layer (connections, WAL,
//   prepared statements, custom functions) instead of a hand-written C binding. Its
//   `GRDBSQLite` module (the system SQLite's C API) lets the row decoder read columns
//   of a GRDB statement directly, the one hot loop where GRDB's `Row` costs too much.
// - swift-syntax: required to implement the `@Managed` macro.
// - swift-crypto: SHA-256 for entity version hashes (Core Data stores them in the
//   store metadata), portable where CryptoKit is missing.
// - swift-collections: `OrderedSet` holds to-many relationship members, which need
//   both set semantics and a stable order (ordered relationships, Z_FOK_ columns).
// - swift-argument-parser: the `cdtool` and example apps' command lines (subcommands,
//   options, help and usage errors, exit codes), the standard parser for Swift tools.
// - FlyingFox: the small HTTP server the Virtual Tourist example starts on the loopback
//   interface as its photo service, and the store browser's (`cdtool serve`); plain sockets
//   and Swift concurrency, so it builds in seconds where a SwiftNIO server (Hummingbird)
//   would add minutes to every clean build.
// - swift-docc-plugin: `swift package generate-documentation`, the standard way to build
//   DocC documentation from SwiftPM: the articles (Sources/OpenCoreData/OpenCoreData.docc)
//   and the doc comments, as one combined archive of the library's modules. CI runs it
//   with warnings as errors so that a broken symbol link fails. A command plugin: nothing
//   of it is linked into the library or its users' programs.

/// Set in the environment, the conformance tests build against Apple's Core Data instead of
/// OpenCoreData (on Apple platforms), so every documented behaviour, deviations included, can
/// be checked against the real framework.
let compatibilityTest = Context.environment["OPENCOREDATA_COMPATIBILITY_TEST"] != nil

let package = Package(
    name: "OpenCoreData",
    // The Synchronization module's `Mutex` and `Atomic` (locks without Foundation's
    // class overhead on the hot paths) set these minimums on Apple platforms.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "OpenCoreData", targets: ["OpenCoreData"]),
        .library(name: "OpenSwiftData", targets: ["OpenSwiftData"]),
        .library(name: "OpenCoreDataPostgreSQL", targets: ["OpenCoreDataPostgreSQL"]),
        .executable(name: "Acquaintance", targets: ["Acquaintance"]),
        .executable(name: "Family", targets: ["Family"]),
        .executable(name: "Tags", targets: ["Tags"]),
        .executable(name: "TagsSwiftData", targets: ["TagsSwiftData"]),
        .executable(name: "PickYourPitch", targets: ["PickYourPitch"]),
        .executable(name: "FavoriteActors", targets: ["FavoriteActors"]),
        .executable(name: "Shutterbug", targets: ["Shutterbug"]),
        .executable(name: "CoolNotes", targets: ["CoolNotes"]),
        .executable(name: "VirtualTourist", targets: ["VirtualTourist"]),
        .executable(name: "AcquaintanceServer", targets: ["AcquaintanceServer"]),
        .executable(name: "cdtool-serve", targets: ["cdtool-serve"]),
        .executable(name: "cdtool", targets: ["cdtool"]),
        .plugin(name: "OpenCoreDataCodegen", targets: ["OpenCoreDataCodegen"]),
        .plugin(name: "OpenCoreDataModelCompiler", targets: ["OpenCoreDataModelCompiler"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .macro(
            name: "OpenCoreDataMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        // One Swift runtime entry point (`swift_tryRetain`) for the registry and row
        // cache's unretained references; Swift code cannot declare it itself.
        .target(name: "OpenCoreDataRuntimeShims"),
        // Raw DEFLATE through the system's zlib (Linux: zlib1g-dev): Core Data compresses
        // the model it caches in Z_MODELCACHE, and Foundation on Linux cannot expand it.
        .target(name: "OpenCoreDataDeflate", linkerSettings: [.linkedLibrary("z")]),
        // The predicate language: NSPredicate, NSExpression, NSSortDescriptor, their parser,
        // formatter and in-memory evaluation. It sits at the bottom: it knows key-value
        // coding, not managed objects, so everything above can use it.
        .target(name: "OpenCoreDataPredicate"),
        // What Apple's Foundation and UIKit offer and Linux's lack, which Core Data's API names:
        // UndoManager, UIDocument, ValueTransformer, keyed archives and binary property lists
        // (the formats of compiled models and Core Data's metadata), raw DEFLATE. It knows
        // nothing of Core Data, so the core and everything above can use it.
        .target(name: "OpenCoreDataFoundation", dependencies: ["OpenCoreDataDeflate"]),
        // The model: entity, property and model descriptions, their version hashes, and fetch
        // requests (a query described against the model). It knows no objects, contexts or
        // stores, so file readers and everything above can build and read models.
        .target(
            name: "OpenCoreDataModel",
            dependencies: [
                "OpenCoreDataPredicate",
                "OpenCoreDataFoundation",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Model files: Xcode's model files (`.xcdatamodeld`, `.xcdatamodel`), compiled models
        // (`.momd`, `.mom`, and the cache in a store) and mapping models (`.xcmappingmodel`,
        // `.cdm`), read and written. It builds model descriptions and knows nothing of objects,
        // so the core and the engines can read models without the readers reading them back.
        .target(
            name: "OpenCoreDataModelFiles",
            dependencies: ["OpenCoreDataPredicate", "OpenCoreDataFoundation", "OpenCoreDataModel"]
        ),
        // The core: objects, contexts, fetching, undo, history, migration, results
        // controller, documents, and the coordinator with the protocol store engines
        // implement (Store/Backend). It knows no SQL.
        .target(
            name: "OpenCoreDataCore",
            dependencies: [
                "OpenCoreDataPredicate",
                "OpenCoreDataFoundation",
                "OpenCoreDataModel",
                "OpenCoreDataModelFiles",
                "OpenCoreDataMacros",
                "OpenCoreDataRuntimeShims",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Core Data's SQL, shared by the SQL engines: the schema (tables and columns of a model),
        // the predicate and sort translation, and the statement builders, binding engine-neutral
        // values (SQLScalar). No database client: the SQLite and PostgreSQL engines run what it builds.
        .target(
            name: "OpenCoreDataSQL",
            dependencies: ["OpenCoreDataModel", "OpenCoreDataModelFiles", "OpenCoreDataCore"]
        ),
        // The SQLite engine behind the core's PersistentStoreEngine/PersistentStoreBackend:
        // schema checks, inference and migration (Schema) and the store itself (Engine), running
        // OpenCoreDataSQL's statements. The only library module that uses GRDB.
        .target(
            name: "OpenCoreDataSQLite",
            dependencies: [
                "OpenCoreDataModel",
                "OpenCoreDataModelFiles",
                "OpenCoreDataCore",
                "OpenCoreDataSQL",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // What users import: re-exports the core, the predicate language and the SQLite
        // engine (linking it in), naming the Foundation-named classes (NSPredicate,
        // NSSortDescriptor, ...) so they win over Foundation's Linux stubs in files that also
        // import Foundation or XCTest (see Sources/OpenCoreData/OpenCoreData.swift).
        // The layers are drawn in docs/ARCHITECTURE.md. The predicate, Foundation stand-in and
        // model modules are named although the core brings them, because the combined documentation
        // build lets a catalog link only into its target's direct dependencies.
        .target(
            name: "OpenCoreData",
            dependencies: [
                "OpenCoreDataPredicate", "OpenCoreDataFoundation", "OpenCoreDataModel", "OpenCoreDataModelFiles",
                "OpenCoreDataCore", "OpenCoreDataSQLite",
            ]),
        // SwiftData's macros (`@Model`, `@Attribute`, `@Relationship`, `@Transient`, `#Unique`,
        // `#Index`, `@ModelActor`): a plugin of their own, so the Core Data layer's macros do
        // not grow with SwiftData's.
        .macro(
            name: "OpenSwiftDataMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        // SwiftData's API on the Core Data layer, as Apple built SwiftData on Core Data: a
        // `Schema` becomes an `NSManagedObjectModel`, a `ModelContext` drives an
        // `NSManagedObjectContext`, `#Predicate` becomes an `NSPredicate` the SQLite store runs
        // in SQL. Its stores are Core Data stores. Foundation's `Predicate` and the toolchain's
        // Observation module carry the expression trees and change tracking.
        .target(
            name: "OpenSwiftData",
            dependencies: ["OpenCoreData", "OpenCoreDataCore", "OpenSwiftDataMacros"]
        ),
        .executableTarget(
            name: "OpenCoreDataBenchmarks",
            dependencies: [
                "OpenCoreData",
                // The SwiftData layer, run as a contender beside the Core Data layer.
                "OpenSwiftData",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The system SQLite's C API (GRDB's module for it) for the raw baseline.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "BenchmarkHeap",
                // The store browser's pages, for the `browse` workload; on a PostgreSQL store too,
                // against the same query through libpq.
                "StoreBrowser", "OpenCoreDataPostgreSQL",
            ],
            path: "Benchmarks/OpenCoreDataBenchmarks"
        ),
        // The C heap's statistics (glibc's malloc.h), for the memory held per object.
        .target(name: "BenchmarkHeap", path: "Benchmarks/BenchmarkHeap"),
        .executableTarget(
            name: "Acquaintance",
            dependencies: [
                "OpenCoreData", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/Acquaintance"
        ),
        // What the seed apps share: where their data lives, their failures and how they are
        // shown (hence the argument parser), their models in code.
        .target(
            name: "ExampleSupport",
            dependencies: ["OpenCoreData", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/ExampleSupport"
        ),
        .executableTarget(
            name: "Family",
            dependencies: [
                "OpenCoreData", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/Family"
        ),
        // Its classes come from its model file through the codegen plugin, as in Xcode.
        .executableTarget(
            name: "Tags",
            dependencies: [
                "OpenCoreData", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/Tags",
            resources: [.copy("Tags.xcdatamodeld")],
            plugins: ["OpenCoreDataCodegen"]
        ),
        // The Tags seed written with SwiftData: its @Model classes map to the same
        // Core Data entities as Tags.xcdatamodeld, so either variant opens the other's store.
        .executableTarget(
            name: "TagsSwiftData",
            dependencies: [
                "OpenSwiftData", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/TagsSwiftData"
        ),
        .executableTarget(
            name: "FavoriteActors",
            dependencies: [
                "OpenCoreData", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/FavoriteActors"
        ),
        .executableTarget(
            name: "Shutterbug",
            dependencies: [
                "OpenCoreData", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/Shutterbug"
        ),
        .executableTarget(
            name: "CoolNotes",
            dependencies: [
                "OpenCoreData", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/CoolNotes",
            resources: [.copy("CoolNotes.xcdatamodeld")],
            plugins: ["OpenCoreDataCodegen"]
        ),
        // Acquaintance's address book as an HTTP API over PostgreSQL, run as several processes
        // on one database (FlyingFox, as Virtual Tourist's photo service: no SwiftNIO to build).
        .executableTarget(
            name: "AcquaintanceServer",
            dependencies: [
                "OpenCoreData", "OpenCoreDataPostgreSQL", "ExampleSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "FlyingFox", package: "FlyingFox"),
            ],
            path: "Examples/AcquaintanceServer"
        ),
        .executableTarget(
            name: "VirtualTourist",
            dependencies: [
                "OpenCoreData", "ExampleSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "FlyingFox", package: "FlyingFox"),
            ],
            path: "Examples/VirtualTourist"
        ),
        // User defaults only: the simplest technique of the seeds.
        .executableTarget(
            name: "PickYourPitch",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/PickYourPitch"
        ),
        // The logic of `cdtool`'s commands, in a library so tests call it without
        // spawning processes; `cdtool` itself only parses arguments.
        .target(
            name: "CDToolCore",
            // The core for the store-inspection SPI that only tools use.
            dependencies: [
                "OpenCoreData", "OpenCoreDataCore", "OpenCoreDataSQL", "OpenCoreDataSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "cdtool",
            dependencies: ["CDToolCore", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The store browser's pages (`cdtool serve`), apart from any server so that tests
        // call them directly; HTML is written here, escaped in one place.
        .target(
            name: "StoreBrowser",
            // Both engines: a SQLite file, or a PostgreSQL database's URL. libpq is a system
            // library the package already builds against; it keeps the browser one program.
            dependencies: [
                "CDToolCore", "OpenCoreData", "OpenCoreDataSQL", "OpenCoreDataSQLite", "OpenCoreDataPostgreSQL",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The store browser's web server, a separate executable that `cdtool serve` hands
        // over to: the server library stays out of `cdtool`, which the codegen plugin builds.
        // FlyingFox, as the examples' servers (no SwiftNIO to build).
        .executableTarget(
            name: "cdtool-serve",
            dependencies: [
                "StoreBrowser", "OpenCoreDataPostgreSQL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "FlyingFox", package: "FlyingFox"),
            ]
        ),
        // Runs `cdtool codegen` on a target's `.xcdatamodeld`/`.xcdatamodel` files at
        // build time, like Xcode's "Class Definition" codegen.
        .plugin(
            name: "OpenCoreDataCodegen",
            capability: .buildTool(),
            dependencies: ["cdtool"]
        ),
        // Runs `cdtool compile` on a target's `.xcdatamodeld`/`.xcdatamodel` files at build
        // time, like Xcode's model compiler: `Name.momd`/`Name.mom` among the target's resources.
        .plugin(
            name: "OpenCoreDataModelCompiler",
            capability: .buildTool(),
            dependencies: ["cdtool"]
        ),
        // A target as a library using Core Data writes it: a `.xcdatamodeld` resource compiled
        // by the plugin and loaded by its `momd` URL from `Bundle.module`.
        .testTarget(
            name: "OpenCoreDataModelCompilerTests",
            dependencies: ["OpenCoreData"],
            resources: [.copy("Model.xcdatamodeld"), .copy("Single.xcdatamodel")],
            plugins: ["OpenCoreDataModelCompiler"]
        ),
        // A third-party Core Data library and its test suite, ported with the porting
        // checklist's rewrites only: its model compiled by the plugin and loaded by `momd` URL,
        // a stack on SQLite, in-memory and Binary stores, lists sectioned by a computed
        // property, predicate constants cast as NSNumbers. Swift 5 mode, as such libraries are.
        .testTarget(
            name: "OpenCoreDataLibraryTests",
            dependencies: ["OpenCoreData"],
            resources: [.copy("Bookshelf.xcdatamodeld")],
            swiftSettings: [.swiftLanguageMode(.v5)],
            plugins: ["OpenCoreDataModelCompiler"]
        ),
        .testTarget(
            name: "StoreBrowserTests",
            dependencies: [
                "StoreBrowser", "CDToolCore", "OpenCoreData", "OpenCoreDataPostgreSQL", "OpenCoreDataTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "CDToolTests",
            dependencies: [
                "CDToolCore", "OpenCoreData", "OpenCoreDataTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            // Model files the tests read by path (cdtool takes paths, not bundle resources).
            exclude: ["Fixtures"]
        ),
        // A second process for the multi-process tests (concurrent writers, SIGKILL in mid-save).
        .executableTarget(
            name: "opencoredata-store-worker",
            dependencies: ["OpenCoreData", "StoreWorkerSupport"],
            path: "Tests/StoreWorker"
        ),
        // What the worker and the tests' in-process writers share: models and workloads.
        .target(
            name: "StoreWorkerSupport",
            dependencies: ["OpenCoreData", "OpenCoreDataPostgreSQL"],
            path: "Tests/StoreWorkerSupport"
        ),
        // A process per launch for the three-process SwiftData migration test: a
        // store made at schema 1.0.0, migrated to 2.0.0 by a plan, opened again and checked.
        .executableTarget(
            name: "openswiftdata-trips-worker",
            dependencies: ["SwiftDataTripsSupport"],
            path: "Tests/SwiftDataTripsWorker"
        ),
        // What that worker and its test share: the trips schema's versions, the migration plan
        // and the step each process runs.
        .target(
            name: "SwiftDataTripsSupport",
            dependencies: ["OpenSwiftData"],
            path: "Tests/SwiftDataTripsSupport"
        ),
        // libpq, the PostgreSQL project's C client, from the system's packages as SQLite's
        // headers are. Chosen over postgres-nio by measurement (release, loopback, 2 cores):
        // a prepared read by key 57-67 us against 321-560 us, 0.8-1.2 us per decoded row
        // against 3-5 us, and a clean debug build of the client in 10 s against about 12
        // minutes (postgres-nio brings SwiftNIO and BoringSSL). It is synchronous, as the
        // store seam is, and delivers LISTEN/NOTIFY through its socket.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // The PostgreSQL store engine, a library product of its own so that apps using
        // SQLite alone never build or link libpq.
        .target(
            name: "OpenCoreDataPostgreSQL",
            dependencies: ["OpenCoreDataCore", "OpenCoreDataSQL", "CLibPQ"]
        ),
        .testTarget(
            name: "OpenCoreDataPostgreSQLTests",
            dependencies: [
                "OpenCoreDataPostgreSQL", "OpenCoreData", "OpenCoreDataTestSupport", "OpenCoreDataStoreTestSupport",
                // The worker processes' workloads (the reliability tests run `opencoredata-store-worker`).
                "StoreWorkerSupport",
            ]
        ),
        // The predicate language's internals (parser, formatter, evaluation), against that
        // module alone: no model, object or store is built to run them.
        .testTarget(
            name: "OpenCoreDataPredicateTests",
            dependencies: ["OpenCoreDataPredicate"]
        ),
        // The Foundation stand-ins (binary property lists, raw DEFLATE, the undo manager),
        // against that module alone.
        .testTarget(
            name: "OpenCoreDataFoundationTests",
            dependencies: ["OpenCoreDataFoundation", "OpenCoreDataTestSupport"]
        ),
        // What several test targets share and SwiftPM cannot share as sources: a seeded
        // random generator for the randomized tests.
        .target(name: "OpenCoreDataTestSupport", path: "Tests/TestSupport"),
        // What the store suites of both engines share: the photo library, the random
        // predicate generator, the store-versus-memory comparison, and the store-level
        // behaviour suites each engine's target runs on its own stores (`StoreUnderTest`).
        .target(
            name: "OpenCoreDataStoreTestSupport",
            dependencies: ["OpenCoreData", "OpenCoreDataTestSupport"],
            path: "Tests/StoreTestSupport"
        ),
        .testTarget(
            name: "OpenCoreDataTests",
            // The core and the SQLite engine: these tests reach internals with `@testable import
            // OpenCoreDataCore` and `OpenCoreDataSQLite` (the engine's tests share the core's test
            // models and helpers, which SwiftPM cannot share between test targets).
            dependencies: [
                "OpenCoreData", "OpenCoreDataCore", "OpenCoreDataPredicate", "OpenCoreDataSQLite", "OpenCoreDataSQL",
                "StoreWorkerSupport",
                "OpenCoreDataTestSupport", "OpenCoreDataStoreTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            // Model files written for the loader's tests (Xcode's formats), copied as they are.
            resources: [.copy("Fixtures")]
        ),
        // Apple's documented behaviour, one file per Apple class in folders mirroring Sources,
        // written as user code is: files import Foundation and XCTest beside OpenCoreData (no
        // @testable). On a Mac, `OPENCOREDATA_COMPATIBILITY_TEST=1 swift test --filter
        // OpenCoreDataConformanceTests` compiles the same files against Apple's Core Data.
        .testTarget(
            name: "OpenCoreDataConformanceTests",
            dependencies: ["OpenCoreData"],
            swiftSettings: compatibilityTest ? [.define("OPENCOREDATA_COMPATIBILITY_TEST")] : []
        ),
        // An app's Core Data code as Xcode generates and tests it, ported with only the
        // porting checklist's rewrites: generated classes, a .xcdatamodeld resource, XCTest on
        // /dev/null stores, compiled in Swift 5 mode as most apps still are.
        .testTarget(
            name: "OpenCoreDataXcodeProjectTests",
            dependencies: ["OpenCoreData"],
            resources: [.copy("Notes.xcdatamodeld")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The SwiftData layer's internals (predicate translation, schema mapping).
        .testTarget(
            name: "OpenSwiftDataTests",
            // The trips schema and steps the migration worker runs, to check its stores against;
            // the test files folder.
            dependencies: ["OpenSwiftData", "OpenCoreData", "SwiftDataTripsSupport", "OpenCoreDataTestSupport"]
        ),
        // SwiftData's documented behaviour, written as SwiftData user code (one file per Apple
        // type, `import Foundation` + `import OpenSwiftData`). On a Mac,
        // `OPENCOREDATA_COMPATIBILITY_TEST=1 swift test --filter OpenSwiftDataConformanceTests`
        // compiles the same files against Apple's SwiftData.
        .testTarget(
            name: "OpenSwiftDataConformanceTests",
            dependencies: ["OpenSwiftData"],
            swiftSettings: compatibilityTest ? [.define("OPENCOREDATA_COMPATIBILITY_TEST")] : []
        ),
        .testTarget(
            name: "OpenCoreDataMacrosTests",
            dependencies: [
                "OpenCoreDataMacros",
                "OpenSwiftDataMacros",
                .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
