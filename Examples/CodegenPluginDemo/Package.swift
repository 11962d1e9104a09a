// swift-tools-version:6.1
import PackageDescription

// Proof that the OpenCoreDataCodegen build-tool plugin works: `LibraryDemo` holds only a
// model (Library.xcdatamodeld) and code using the classes the plugin generates from it.
// Build it with `swift build --package-path Examples/CodegenPluginDemo` (see README).
let package = Package(
    name: "CodegenPluginDemo",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "OpenCoreData", path: "../..")],
    targets: [
        .executableTarget(
            name: "LibraryDemo",
            dependencies: [.product(name: "OpenCoreData", package: "OpenCoreData")],
            plugins: [.plugin(name: "OpenCoreDataCodegen", package: "OpenCoreData")]
        )
    ]
)
