import OpenCoreDataTestSupport
import Foundation
import OpenCoreData
import OpenSwiftData
import Testing

// What a SwiftData user sees when a save, fetch, unique value or migration fails. Apple's
// SwiftData traps in several of these cases; here each throws a `SwiftDataError` whose
// sentence names the model type, the property and the offending value, with Core Data's
// `NSError` kept underneath.

@Model final class ErrMsgTrip {
    var name: String
    var owner: ErrMsgOwner
    @Relationship(deleteRule: .cascade, minimumModelCount: 2, maximumModelCount: 3, inverse: \ErrMsgStop.trip)
    var stops: [ErrMsgStop] = []

    init(name: String, owner: ErrMsgOwner) {
        self.name = name
        self.owner = owner
    }
}

@Model final class ErrMsgStop {
    var place: String
    var trip: ErrMsgTrip?
    @Transient var nickname = ""

    init(place: String) {
        self.place = place
    }
}

@Model final class ErrMsgOwner {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \ErrMsgTrip.owner) var trips: [ErrMsgTrip] = []
    @Relationship(deleteRule: .deny, inverse: \ErrMsgBadge.holder) var badges: [ErrMsgBadge] = []

    init(name: String) {
        self.name = name
    }
}

@Model final class ErrMsgBadge {
    var title: String
    var holder: ErrMsgOwner?

    init(title: String) {
        self.title = title
    }
}

@Model final class ErrMsgCity {
    @Attribute(.unique) var name: String
    var population: Int

    init(name: String, population: Int) {
        self.name = name
        self.population = population
    }
}

@Model final class ErrMsgRoute {
    #Unique<ErrMsgRoute>([\.from, \.to])
    var from: String
    var to: String
    var minutes: Int

    init(from: String, to: String, minutes: Int) {
        self.from = from
        self.to = to
        self.minutes = minutes
    }
}

enum ErrMsgSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [ErrMsgGadget.self] }

    @Model final class ErrMsgGadget {
        var code: String
        var size: String

        init(code: String, size: String) {
            self.code = code
            self.size = size
        }
    }
}

enum ErrMsgSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [ErrMsgGadget.self, ErrMsgMaker.self] }

    @Model final class ErrMsgGadget {
        @Attribute(.unique) var code: String
        var size: String
        var maker: ErrMsgMaker?

        init(code: String, size: String) {
            self.code = code
            self.size = size
        }
    }

    @Model final class ErrMsgMaker {
        var name: String
        @Relationship(deleteRule: .nullify, minimumModelCount: 2, inverse: \ErrMsgGadget.maker) var gadgets:
            [ErrMsgGadget] = []

        init(name: String) {
            self.name = name
        }
    }
}

/// 2.0.0 with `size` a number: a change lightweight migration cannot make to text.
enum ErrMsgSchemaV2Numeric: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 1, 0) }
    static var models: [any PersistentModel.Type] { [ErrMsgGadget.self] }

    @Model final class ErrMsgGadget {
        var code: String
        var size: Int

        init(code: String, size: Int) {
            self.code = code
            self.size = size
        }
    }
}

/// A custom stage whose `didMigrate` leaves a maker with fewer gadgets than its minimum.
enum ErrMsgInvalidDidMigratePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ErrMsgSchemaV1.self, ErrMsgSchemaV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: ErrMsgSchemaV1.self, toVersion: ErrMsgSchemaV2.self, willMigrate: nil,
                didMigrate: { context in
                    let maker = ErrMsgSchemaV2.ErrMsgMaker(name: "Acme")
                    context.insert(maker)
                    let gadget = try context.fetch(FetchDescriptor<ErrMsgSchemaV2.ErrMsgGadget>()).first
                    gadget?.maker = maker
                })
        ]
    }
}

/// A custom stage whose `didMigrate` inserts a gadget with a code the store already holds.
enum ErrMsgUniqueDidMigratePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ErrMsgSchemaV1.self, ErrMsgSchemaV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: ErrMsgSchemaV1.self, toVersion: ErrMsgSchemaV2.self, willMigrate: nil,
                didMigrate: { context in
                    context.insert(ErrMsgSchemaV2.ErrMsgGadget(code: "g1", size: "huge"))
                })
        ]
    }
}

/// A lightweight stage from 1.0.0 to 2.0.0 while the store holds one code twice.
enum ErrMsgDuplicateUniquePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ErrMsgSchemaV1.self, ErrMsgSchemaV2.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: ErrMsgSchemaV1.self, toVersion: ErrMsgSchemaV2.self)]
    }
}

/// A lightweight stage that would have to turn text into numbers.
enum ErrMsgUninferablePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ErrMsgSchemaV1.self, ErrMsgSchemaV2Numeric.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: ErrMsgSchemaV1.self, toVersion: ErrMsgSchemaV2Numeric.self)]
    }
}

@Suite(.serialized) struct SwiftDataErrorMessageTests {
    private func folder() throws -> URL {
        let folder = testFilesFolder.appendingPathComponent("ErrMsg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private func tripContainer() throws -> ModelContainer {
        try ModelContainer(
            for: ErrMsgTrip.self, ErrMsgStop.self, ErrMsgOwner.self, ErrMsgBadge.self,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    /// Runs `body`; returns its error, if any, and the texts a user sees of it (`description`
    /// and `localizedDescription`) to check. `label` only names the case where it is called.
    private func failure(_ label: String, _ body: () throws -> Void) -> (error: (any Error)?, text: String) {
        do {
            try body()
            return (nil, "")
        } catch {
            return (error, "\(error) | \(error.localizedDescription)")
        }
    }

    // MARK: Save: validation

    @Test func tooFewRelatedModelsNamesModelPropertyAndCount() throws {
        let context = ModelContext(try tripContainer())
        let owner = ErrMsgOwner(name: "Ann")
        context.insert(owner)
        let trip = ErrMsgTrip(name: "Paris", owner: owner)
        context.insert(trip)
        trip.stops.append(ErrMsgStop(place: "Louvre"))

        let (error, text) = failure("min count") { try context.save() }
        #expect(error as? SwiftDataError == .modelValidationFailure)
        #expect(text.contains("ErrMsgTrip.stops"))
        #expect(text.contains("1 ErrMsgStop"))
        #expect(text.contains("minimum") && text.contains("2"))
        #expect(!text.contains("NSManagedObject"))
        // Core Data's error stays underneath.
        let underlying = (error as NSError?)?.userInfo[NSUnderlyingErrorKey] as? NSError
        #expect(underlying?.code == NSValidationRelationshipLacksMinimumCountError)
    }

    @Test func tooManyRelatedModelsNamesTheMaximum() throws {
        let context = ModelContext(try tripContainer())
        let owner = ErrMsgOwner(name: "Ann")
        context.insert(owner)
        let trip = ErrMsgTrip(name: "Rome", owner: owner)
        context.insert(trip)
        trip.stops.append(contentsOf: (1...4).map { ErrMsgStop(place: "stop \($0)") })

        let (error, text) = failure("max count") { try context.save() }
        #expect(error as? SwiftDataError == .modelValidationFailure)
        #expect(text.contains("ErrMsgTrip.stops"))
        #expect(text.contains("4 ErrMsgStop"))
        #expect(text.contains("maximum") && text.contains("3"))
    }

    @Test func aRequiredToOneLeftNilByADeleteNamesModelAndProperty() throws {
        let context = ModelContext(try tripContainer())
        let owner = ErrMsgOwner(name: "Ann")
        context.insert(owner)
        let trip = ErrMsgTrip(name: "Oslo", owner: owner)
        context.insert(trip)
        trip.stops.append(contentsOf: [ErrMsgStop(place: "a"), ErrMsgStop(place: "b")])
        try context.save()
        // The nullify rule clears `trip.owner`, which the model declares non-optional.
        context.delete(owner)

        let (error, text) = failure("required to-one") { try context.save() }
        #expect(error as? SwiftDataError == .modelValidationFailure)
        #expect(text.contains("ErrMsgTrip.owner"))
        #expect(text.contains("nil"))
        #expect(text.contains("required"))
    }

    @Test func aDenyRuleNamesTheModelPropertyAndWhatRemains() throws {
        let context = ModelContext(try tripContainer())
        let owner = ErrMsgOwner(name: "Bob")
        context.insert(owner)
        for title in ["Explorer", "Pioneer"] {
            let badge = ErrMsgBadge(title: title)
            context.insert(badge)
            owner.badges.append(badge)
        }
        try context.save()
        context.delete(owner)

        let (error, text) = failure("deny") { try context.save() }
        #expect(error as? SwiftDataError == .modelValidationFailure)
        #expect(text.contains("ErrMsgOwner.badges"))
        #expect(text.contains("ErrMsgBadge"))
        #expect(text.contains(".deny"))
        #expect(text.contains("2 in all"))
    }

    @Test func severalFailuresAreAllNamed() throws {
        let context = ModelContext(try tripContainer())
        let owner = ErrMsgOwner(name: "Cy")
        context.insert(owner)
        let first = ErrMsgTrip(name: "Lima", owner: owner)
        let second = ErrMsgTrip(name: "Cusco", owner: owner)
        context.insert(first)
        context.insert(second)
        first.stops.append(ErrMsgStop(place: "x"))
        second.stops.append(contentsOf: (1...5).map { ErrMsgStop(place: "y\($0)") })

        let (error, text) = failure("multiple") { try context.save() }
        #expect(error as? SwiftDataError == .modelValidationFailure)
        #expect(text.contains("1 ErrMsgStop"))
        #expect(text.contains("5 ErrMsgStop"))
        let underlying = (error as NSError?)?.userInfo[NSUnderlyingErrorKey] as? NSError
        #expect(underlying?.code == NSValidationMultipleErrorsError)
    }

    @Test func aFailedSaveStillComparesEqualToItsKind() throws {
        let context = ModelContext(try tripContainer())
        let owner = ErrMsgOwner(name: "Di")
        context.insert(owner)
        let trip = ErrMsgTrip(name: "Bern", owner: owner)
        context.insert(trip)
        trip.stops.append(ErrMsgStop(place: "z"))
        #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        do {
            try context.save()
        } catch SwiftDataError.modelValidationFailure {
            // matched by kind, whatever the sentence
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    // MARK: Save: unique values

    @Test func twoContainersOnOneFileUpsertAUniqueValue() throws {
        let url = try folder().appendingPathComponent("cities.store")
        let first = ModelContext(try ModelContainer(for: ErrMsgCity.self, configurations: ModelConfiguration(url: url)))
        let second = ModelContext(
            try ModelContainer(for: ErrMsgCity.self, configurations: ModelConfiguration(url: url)))
        first.insert(ErrMsgCity(name: "Paris", population: 1))
        second.insert(ErrMsgCity(name: "Paris", population: 2))
        let (firstError, _) = failure("unique first save") { try first.save() }
        let (secondError, _) = failure("unique second save") { try second.save() }
        #expect(firstError == nil && secondError == nil)
        let cities = try ModelContext(first.container).fetch(FetchDescriptor<ErrMsgCity>())
        #expect(cities.map(\.name) == ["Paris"])
        #expect(cities.map(\.population) == [2])
    }

    @Test func twoContainersOnOneFileUpsertACompoundUniqueValue() throws {
        let url = try folder().appendingPathComponent("routes.store")
        let first = ModelContext(
            try ModelContainer(for: ErrMsgRoute.self, configurations: ModelConfiguration(url: url)))
        let second = ModelContext(
            try ModelContainer(for: ErrMsgRoute.self, configurations: ModelConfiguration(url: url)))
        first.insert(ErrMsgRoute(from: "A", to: "B", minutes: 10))
        second.insert(ErrMsgRoute(from: "A", to: "B", minutes: 12))
        let (firstError, _) = failure("#Unique first save") { try first.save() }
        let (secondError, _) = failure("#Unique second save") { try second.save() }
        #expect(firstError == nil && secondError == nil)
        let routes = try ModelContext(first.container).fetch(FetchDescriptor<ErrMsgRoute>())
        #expect(routes.map(\.minutes) == [12])
    }

    /// A saved model renamed to another's unique value: the upsert cannot merge two saved
    /// rows, so Core Data's policy undoes the rename and saves the model's other changes.
    /// No error reaches the user; recorded here so a change to that is noticed.
    @Test func renamingASavedModelOntoAnotherUniqueValue() throws {
        let context = ModelContext(
            try ModelContainer(for: ErrMsgCity.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let paris = ErrMsgCity(name: "Paris", population: 1)
        let rome = ErrMsgCity(name: "Rome", population: 2)
        context.insert(paris)
        context.insert(rome)
        try context.save()
        rome.name = "Paris"
        rome.population = 3
        let (error, text) = failure("rename onto unique") { try context.save() }
        #expect(error == nil && text.isEmpty)
        #expect(rome.name == "Rome" && rome.population == 3)
    }

    /// The conversion of Core Data's constraint error, for a context whose merge policy does
    /// not upsert (a model context always does; Core Data's error policy is the default).
    @Test func aConstraintConflictErrorNamesModelPropertiesAndValues() throws {
        let entity = NSEntityDescription()
        entity.name = "ErrMsgCity"
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        let country = NSAttributeDescription()
        country.name = "country"
        country.attributeType = .stringAttributeType
        entity.properties = [name, country]
        entity.uniquenessConstraints = [["name", "country"]]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil,
            at: try folder().appendingPathComponent("c.store"), options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let coreDataError: NSError? = context.performAndWait {
            for _ in 0..<2 {
                let city = NSEntityDescription.insertNewObject(forEntityName: "ErrMsgCity", into: context)
                city.setValue("Paris", forKey: "name")
                city.setValue("FR", forKey: "country")
            }
            do { try context.save(); return nil } catch { return error as NSError }
        }
        let error = try #require(coreDataError)
        #expect(error.code == NSManagedObjectConstraintMergeError)
        let converted = try #require(SwiftDataError.saveError(error))
        #expect(converted == .modelValidationFailure)
        let text = converted.description
        #expect(text.contains("ErrMsgCity"))
        #expect(text.contains("name") && text.contains("country"))
        #expect(text.contains("\"Paris\"") && text.contains("\"FR\""))
        #expect(text.contains("unique"))
    }

    // MARK: Fetch

    @Test func aPredicateOnATransientPropertyNamesModelAndProperty() throws {
        let context = ModelContext(try tripContainer())
        let (error, text) = failure("transient predicate") {
            _ = try context.fetch(FetchDescriptor<ErrMsgStop>(predicate: #Predicate { $0.nickname == "x" }))
        }
        #expect(error as? SwiftDataError == .unsupportedKeyPath)
        #expect(text.contains("ErrMsgStop") && text.contains("nickname"))
    }

    /// A store changed under an open container (its table dropped by another program): the
    /// fetch fails with the store's error, which passes through as Core Data's `NSError`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func aStoreChangedUnderTheContainerFailsTheFetch() throws {
        let url = try folder().appendingPathComponent("dropped.store")
        let container = try ModelContainer(for: ErrMsgCity.self, configurations: ModelConfiguration(url: url))
        let writer = ModelContext(container)
        writer.insert(ErrMsgCity(name: "Kyiv", population: 1))
        try writer.save()
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        tool.arguments = [url.path, "DROP TABLE ZERRMSGCITY;"]
        try tool.run()
        tool.waitUntilExit()

        let (error, text) = failure("dropped table fetch") {
            _ = try ModelContext(container).fetch(FetchDescriptor<ErrMsgCity>())
        }
        #expect(error != nil)
        #expect(text.uppercased().contains("ERRMSGCITY"))
    }

    // MARK: Migration

    private func makeVersion1Store(_ gadgets: [(String, String)]) throws -> URL {
        let url = try folder().appendingPathComponent("gadgets.store")
        let container = try ModelContainer(
            for: Schema(versionedSchema: ErrMsgSchemaV1.self), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        for (code, size) in gadgets { context.insert(ErrMsgSchemaV1.ErrMsgGadget(code: code, size: size)) }
        try context.save()
        return url
    }

    @Test func aDidMigrateThatLeavesAnInvalidModelNamesIt() throws {
        let url = try makeVersion1Store([("g1", "small")])
        let (error, text) = failure("invalid didMigrate") {
            _ = try ModelContainer(
                for: Schema(versionedSchema: ErrMsgSchemaV2.self), migrationPlan: ErrMsgInvalidDidMigratePlan.self,
                configurations: ModelConfiguration(url: url))
        }
        #expect(error as? SwiftDataError == .modelValidationFailure)
        #expect(text.contains("ErrMsgMaker.gadgets"))
        #expect(text.contains("1 ErrMsgGadget"))
    }

    @Test func aDidMigrateThatRepeatsAUniqueValueUpserts() throws {
        let url = try makeVersion1Store([("g1", "small")])
        let (error, _) = failure("unique didMigrate") {
            let container = try ModelContainer(
                for: Schema(versionedSchema: ErrMsgSchemaV2.self), migrationPlan: ErrMsgUniqueDidMigratePlan.self,
                configurations: ModelConfiguration(url: url))
            let gadgets = try ModelContext(container).fetch(FetchDescriptor<ErrMsgSchemaV2.ErrMsgGadget>())
            #expect(gadgets.map(\.size) == ["huge"])
        }
        #expect(error == nil)
    }

    @Test func aLightweightStageOverDuplicatesOfANewUniqueValue() throws {
        let url = try makeVersion1Store([("dup", "small"), ("dup", "large")])
        let (error, text) = failure("duplicate unique lightweight") {
            let container = try ModelContainer(
                for: Schema(versionedSchema: ErrMsgSchemaV2.self), migrationPlan: ErrMsgDuplicateUniquePlan.self,
                configurations: ModelConfiguration(url: url))
            _ = try ModelContext(container).fetch(FetchDescriptor<ErrMsgSchemaV2.ErrMsgGadget>())
        }
        #expect(error as? SwiftDataError == .loadIssueModelContainer)
        #expect(text.contains("ErrMsgGadget") && text.contains("code") && text.contains("\"dup\""))
    }

    @Test func aLightweightStageThatCannotBeInferredNamesModelAndProperty() throws {
        let url = try makeVersion1Store([("g1", "small")])
        let (error, text) = failure("uninferable lightweight") {
            let container = try ModelContainer(
                for: Schema(versionedSchema: ErrMsgSchemaV2Numeric.self), migrationPlan: ErrMsgUninferablePlan.self,
                configurations: ModelConfiguration(url: url))
            _ = try ModelContext(container).fetch(FetchDescriptor<ErrMsgSchemaV2Numeric.ErrMsgGadget>())
        }
        #expect(error as? SwiftDataError == .loadIssueModelContainer)
        #expect(text.contains("ErrMsgGadget") && text.contains("size"))
    }
}
