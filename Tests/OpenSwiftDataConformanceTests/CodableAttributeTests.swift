import Foundation
import XCTest
#if canImport(SwiftData) && OPENCOREDATA_COMPATIBILITY_TEST
import SwiftData
#else
import OpenSwiftData
#endif

final class CodableAttributeTests: XCTestCase {
    func testCodableStructsAndArraysRoundTripAndStructElementsAreQueryable() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("Codable-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("landmarks.store")
        do {
            let context = ModelContext(
                try ModelContainer(for: Landmark.self, configurations: ModelConfiguration(url: url)))
            let tower = Landmark(
                name: "Tower", coordinates: Coordinates(latitude: 48.86, longitude: 2.29, label: "Paris"))
            tower.tags = ["iron", "tall"]
            context.insert(tower)
            context.insert(Landmark(name: "Pole", coordinates: Coordinates(latitude: 90, longitude: 0, label: nil)))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Landmark.self, configurations: ModelConfiguration(url: url)))
        let north = try context.fetch(FetchDescriptor<Landmark>(predicate: #Predicate { $0.coordinates.latitude > 60 }))
        XCTAssertEqual(north.map(\.name), ["Pole"])
        XCTAssertNil(north.first?.coordinates.label)
        let sorted = try context.fetch(FetchDescriptor<Landmark>(sortBy: [SortDescriptor(\.coordinates.latitude)]))
        XCTAssertEqual(sorted.map(\.name), ["Tower", "Pole"])
        let tower = try XCTUnwrap(sorted.first)
        XCTAssertEqual(tower.coordinates, Coordinates(latitude: 48.86, longitude: 2.29, label: "Paris"))
        XCTAssertEqual(tower.tags, ["iron", "tall"])
        tower.coordinates.label = "Paris, France"
        try context.save()
        let relabeled = try ModelContext(context.container).fetch(
            FetchDescriptor<Landmark>(predicate: #Predicate { $0.coordinates.label == "Paris, France" }))
        XCTAssertEqual(relabeled.map(\.name), ["Tower"])
    }
}
