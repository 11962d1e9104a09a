// libFuzzer entry point for damaged stores: a small valid store made through the public
// API, damaged by the input (bytes of its pages overwritten, the file cut short), then
// opened and read in full (fetches, batched fetches, faults fired, both sides of each
// relationship). Opening or reading may throw; it must never crash or hang (libFuzzer's
// -timeout), and no object may come back holding values the seed never stored.
// Built and run by Fuzz/run-store-fuzz.sh.
//
// What counts as made up: SQLite has no page checksums, so a damaged byte inside a row
// legitimately reads back as another value. What the engine must never do is invent one,
// as a fault filled with the model's defaults when its row cannot be read. Every default
// here is a sentinel the seed never stores, so an object that is not a fault any more
// (its values were read) and holds a sentinel was made up.
import Foundation
import OpenCoreDataCore

private let sentinelName = "⟨made-up name⟩"
private let sentinelAge: Int64 = -7_070_707_070_707
private let sentinelLabel = "⟨made-up label⟩"
private let sentinelTitle = "⟨made-up title⟩"

private func attribute(_ name: String, _ type: NSAttributeType, default value: Any?) -> NSAttributeDescription {
    let attribute = NSAttributeDescription()
    attribute.name = name
    attribute.attributeType = type
    attribute.defaultValue = value
    return attribute
}

private func relationship(
    _ name: String, to destination: NSEntityDescription, toMany: Bool
) -> NSRelationshipDescription {
    let relationship = NSRelationshipDescription()
    relationship.name = name
    relationship.destinationEntity = destination
    relationship.maxCount = toMany ? 0 : 1
    return relationship
}

/// Family ↔ Person.family/members (a key column), Person ↔ Tag (a join table).
private func fuzzModel() -> NSManagedObjectModel {
    func entity(_ name: String, _ properties: [NSPropertyDescription]) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = "NSManagedObject"
        entity.properties = properties
        return entity
    }
    let family = entity("Family", [attribute("title", .stringAttributeType, default: sentinelTitle)])
    let person = entity(
        "Person",
        [
            attribute("name", .stringAttributeType, default: sentinelName),
            attribute("age", .integer64AttributeType, default: sentinelAge),
            attribute("note", .stringAttributeType, default: nil),
        ])
    let tag = entity("Tag", [attribute("label", .stringAttributeType, default: sentinelLabel)])
    let members = relationship("members", to: person, toMany: true)
    let ofFamily = relationship("family", to: family, toMany: false)
    members.inverseRelationship = ofFamily
    ofFamily.inverseRelationship = members
    let tags = relationship("tags", to: tag, toMany: true)
    let people = relationship("people", to: person, toMany: true)
    tags.inverseRelationship = people
    people.inverseRelationship = tags
    family.properties.append(members)
    person.properties += [ofFamily, tags]
    tag.properties.append(people)
    let model = NSManagedObjectModel()
    model.entities = [family, person, tag]
    return model
}

private let model = fuzzModel()

/// Where each input's damaged copy is written (memory-backed when /dev/shm exists).
private let storeURL: URL = {
    let shared = URL(fileURLWithPath: "/dev/shm")
    let base = FileManager.default.fileExists(atPath: shared.path) ? shared : FileManager.default.temporaryDirectory
    let folder = base.appendingPathComponent("opencoredata-store-fuzz-\(getpid())")
    try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("Fuzz.sqlite")
}()

/// The seed store's bytes: made once, closed (so everything is in the main file).
private let seed: Data = {
    let url = storeURL.deletingLastPathComponent().appendingPathComponent("Seed.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let store = try! coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try! context.performAndWait {
        let tags = (0..<6).map { index -> NSManagedObject in
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("tag \(index)", forKey: "label")
            return tag
        }
        let families = (0..<5).map { index -> NSManagedObject in
            let family = NSEntityDescription.insertNewObject(forEntityName: "Family", into: context)
            family.setValue("family \(index)", forKey: "title")
            return family
        }
        for index in 0..<60 {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue("person \(index) " + String(repeating: "x", count: index % 7 * 9), forKey: "name")
            person.setValue(Int64(index * 1_000 + 17), forKey: "age")
            if index % 3 == 0 { person.setValue(String(repeating: "note \(index) ", count: 40), forKey: "note") }
            person.setValue(families[index % families.count], forKey: "family")
            person.setValue(NSSet(array: [tags[index % 6], tags[(index / 6) % 6]]), forKey: "tags")
        }
        try context.save()
    }
    try! coordinator.remove(store)
    return try! Data(contentsOf: url)
}()

/// The attribute read first, which fires an object's fault.
private let firstKey = ["Person": "name", "Family": "title", "Tag": "label"]

/// Fires `object`'s fault and fails the run when what it read holds a default the seed
/// never stored.
private func check(_ object: NSManagedObject) {
    guard let name = object.entity.name, let key = firstKey[name] else { return }
    let value = object.value(forKey: key)
    // A fault whose row could not be read stays a fault and reports its error elsewhere.
    guard !object.isFault else { return }
    let made: Bool
    switch name {
    case "Person":
        let age = object.value(forKey: "age")
        made =
            value as? String == sentinelName || (age as? NSNumber)?.int64Value == sentinelAge
            || age as? Int64 == sentinelAge
    case "Tag": made = value as? String == sentinelLabel
    default: made = value as? String == sentinelTitle
    }
    if made {
        fatalError(
            "\(object.objectID.uriRepresentation()) was read with values the store never held: \(object.committedValues(forKeys: nil))"
        )
    }
}

/// Reads every object of every entity, then each relationship, through the public API.
private func readEverything(_ context: NSManagedObjectContext) {
    for name in ["Person", "Family", "Tag"] {
        let request = NSFetchRequest<NSManagedObject>(entityName: name)
        // Faults, fired one by one as properties are read.
        request.returnsObjectsAsFaults = true
        if let objects = try? context.fetch(request) {
            for object in objects {
                check(object)
                for (key, relationship) in object.entity.relationshipsByName {
                    if relationship.isToMany {
                        let members = (object.value(forKey: key) as? NSSet)?.allObjects as? [NSManagedObject] ?? []
                        for member in members { check(member) }
                    } else if let destination = object.value(forKey: key) as? NSManagedObject {
                        check(destination)
                    }
                }
            }
        }
        context.reset()
        // Batched: rows fetched in pages as the list is walked.
        request.fetchBatchSize = 7
        if let batched = try? context.fetchBatched(request) {
            for object in batched { check(object) }
        }
        context.reset()
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func storeFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var bytes = [UInt8](seed)
    let input = UnsafeRawBufferPointer(start: start, count: count)
    // The first byte chooses a cut (when odd, the file keeps a share given by the second);
    // then each 4 bytes overwrite one byte: a page number, an offset in the page, a value.
    var index = 0
    if input.count >= 2, input[0] & 1 == 1 {
        bytes.removeLast(bytes.count - bytes.count * Int(input[1]) / 256)
        index = 2
    } else if !input.isEmpty {
        index = 1
    }
    let pageSize = 4_096
    while index + 4 <= input.count, !bytes.isEmpty {
        let page = Int(input[index])
        let offset = Int(input[index + 1]) << 8 | Int(input[index + 2])
        bytes[(page * pageSize + offset % pageSize) % bytes.count] = input[index + 3]
        index += 4
    }
    for suffix in ["", "-wal", "-shm", "-journal"] {
        try? FileManager.default.removeItem(atPath: storeURL.path + suffix)
    }
    try! Data(bytes).write(to: storeURL)

    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    guard
        let store = try? coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL)
    else { return 0 }
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    context.performAndWait { readEverything(context) }
    try? coordinator.remove(store)
    return 0
}
