import Foundation
@testable import OpenCoreDataCore
import Synchronization
import Testing

/// Mapping models read from files: Xcode's `.xcmappingmodel` source and the compiled
/// `.cdm`, found by version hashes and used when a store opens (heavyweight migration
/// at open). The fixtures (Fixtures/Mapping, written by make_mapping_fixtures.py) map
/// Contacts to Contacts 2 as HeavyweightMigrationTests' code-built mapping does.
@Suite(.serialized) struct MappingModelFileTests {
    static func folder() throws -> URL { try ModelFixtures.url("Mapping") }
    static func sourceForm() throws -> URL { try folder().appendingPathComponent("ContactsToContacts2.xcmappingmodel") }
    static func compiledForm() throws -> URL { try folder().appendingPathComponent("Compiled/ContactsToContacts2.cdm") }

    static func versions(in folder: URL) throws -> (NSManagedObjectModel, NSManagedObjectModel) {
        let versions = try NSManagedObjectModel.versions(in: folder.appendingPathComponent("Contacts.xcdatamodeld"))
        return (
            try #require(versions.modelsByVersionName["Contacts"]),
            try #require(versions.modelsByVersionName["Contacts 2"])
        )
    }

    @Test func theSourceFormGetsTheExpressionsXcodesCompilerFillsIn() throws {
        let mapping = try NSMappingModel.load(contentsOf: Self.sourceForm())
        let (v1, v2) = try Self.versions(in: Self.folder())
        let mappings = try #require(mapping.entityMappings)
        #expect(
            mappings.map(\.name) == ["PersonToContact", "CustomerToContact", "NoteToNote"], "ordered by mapping number")
        #expect(
            mappings.map(\.mappingType) == [
                .customEntityMappingType, .customEntityMappingType, .transformEntityMappingType,
            ])
        #expect(
            mappings.map(\.entityMigrationPolicyClassName) == [
                String(reflecting: ContactNamePolicy.self), String(reflecting: ContactNamePolicy.self), nil,
            ])
        #expect(
            mappings.allSatisfy {
                $0.sourceEntityVersionHash == v1.entitiesByName[$0.sourceEntityName ?? ""]?.versionHash
            })
        #expect(
            mappings.allSatisfy {
                $0.destinationEntityVersionHash == v2.entitiesByName[$0.destinationEntityName ?? ""]?.versionHash
            })
        #expect(mappings[0].userInfo?["purpose"] as? String == "split names")

        let customers = mappings[1]
        #expect(customers.sourceExpression?.expressionType == .fetchRequest)
        #expect(
            customers.sourceExpression?.description
                == #"FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Customer", "email != nil"), $manager.sourceContext, NO)"#
        )
        let values = Dictionary(
            uniqueKeysWithValues: (customers.attributeMappings ?? []).map {
                ($0.name ?? "", $0.valueExpression?.description)
            })
        #expect(values["firstName"] == #"FUNCTION($entityPolicy, "firstNameOf:", $source.fullName)"#)
        #expect(values["email"] == "$source.email", "an attribute the source entity has is copied")
        #expect(values["isCustomer"] == "1" || values["isCustomer"] == "YES")
        #expect(customers.relationshipMappings?.first?.valueExpression == nil, "Customer has no notes to carry over")
        #expect(
            mappings[0].relationshipMappings?.first?.valueExpression?.description
                == #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "NoteToNote", $source.notes)"#
        )
        #expect(
            mappings[2].relationshipMappings?.first?.valueExpression?.description
                == #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "PersonToContact", $source.author)"#,
            "a relationship goes through the mapping of the entity it leads to")
    }

    @Test func theCompiledFormHoldsTheSameMapping() throws {
        let compiled = try #require(NSMappingModel(contentsOf: Self.compiledForm()))
        let source = try NSMappingModel.load(contentsOf: Self.sourceForm())
        let pairs = zip(try #require(compiled.entityMappings), try #require(source.entityMappings))
        #expect(compiled.entityMappings.count == 3)
        for (a, b) in pairs {
            #expect(a.name == b.name)
            #expect(
                a.mappingType == b.mappingType
                    || (a.name == "NoteToNote" && a.mappingType == .transformEntityMappingType))
            #expect(
                a.sourceEntityVersionHash == b.sourceEntityVersionHash
                    && a.destinationEntityVersionHash == b.destinationEntityVersionHash)
            #expect(
                a.sourceExpression == b.sourceExpression, "\(a.name ?? ""): \(a.sourceExpression?.description ?? "nil")"
            )
            #expect(a.entityMigrationPolicyClassName == b.entityMigrationPolicyClassName)
            for (x, y) in zip(
                (a.attributeMappings ?? []) + (a.relationshipMappings ?? []),
                (b.attributeMappings ?? []) + (b.relationshipMappings ?? []))
            {
                #expect(x.name == y.name && x.valueExpression == y.valueExpression, "\(a.name ?? "").\(x.name ?? "")")
            }
        }
        #expect(compiled.entityMappingsByName["PersonToContact"]?.userInfo?["purpose"] as? String == "split names")
    }

    @Test func aMappingModelIsFoundByTheVersionHashesOfBothModels() throws {
        let bundle = try #require(Bundle(url: Self.folder()))
        let (v1, v2) = try Self.versions(in: Self.folder())
        #expect(NSMappingModel(from: [bundle], forSourceModel: v1, destinationModel: v2)?.entityMappings.count == 3)
        #expect(NSMappingModel(from: [bundle], forSourceModel: v2, destinationModel: v1) == nil)
        #expect(NSMappingModel(from: [bundle], forSourceModel: v1, destinationModel: v1) == nil)
        let compiled = try #require(Bundle(url: Self.folder().appendingPathComponent("Compiled")))
        #expect(
            NSMappingModel(from: [compiled], forSourceModel: v1, destinationModel: v2)?.entityMappingsByName[
                "NoteToNote"] != nil)
    }

    /// A project folder with the versioned model and one form of the mapping model.
    private func project(with mappingFile: URL) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "MappingModelFileTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Self.folder().appendingPathComponent("Contacts.xcdatamodeld"),
            to: folder.appendingPathComponent("Contacts.xcdatamodeld"))
        try FileManager.default.copyItem(
            at: mappingFile, to: folder.appendingPathComponent(mappingFile.lastPathComponent))
        return folder
    }

    /// A version 1 store in `folder`: two people (Ada with two notes), two customers (one without an email).
    private func makeVersion1Store(in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("Contacts.sqlite")
        let context = try makeContext(try Self.versions(in: folder).0, url: url)
        try HeavyweightMigrationTests.insertVersion1Objects(
            into: context, people: ["Ada Lovelace", "Socrates"], customers: ["Katherine Johnson", "No Mail"])
        try context.persistentStoreCoordinator?.persistentStores.forEach {
            try context.persistentStoreCoordinator?.remove($0)
        }
        return url
    }

    @Test(arguments: ["source", "compiled"], [true, false])
    func aStoreOpensMigratedByTheMappingModelBesideItsModel(form: String, infers: Bool) throws {
        let folder = try project(with: form == "source" ? Self.sourceForm() : Self.compiledForm())
        let url = try makeVersion1Store(in: folder)
        let model = try NSManagedObjectModel.load(contentsOf: folder.appendingPathComponent("Contacts.xcdatamodeld"))
        let annotations = Mutex<[String]>([])
        let token = StoreDebugLog.addAnnotationObserver { message in
            if message.contains(url.path) { annotations.withLock { $0.append(message) } }
        }
        defer { StoreDebugLog.removeAnnotationObserver(token) }

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [
                NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: infers,
            ])
        #expect(annotations.withLock { $0 }.contains { $0.contains("mapping model file") })
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"), "the work file is removed")
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Contact")
            request.sortDescriptors = [NSSortDescriptor(key: "firstName", ascending: true)]
            let contacts = try context.fetch(request)
            #expect(contacts.map { $0.value(forKey: "firstName") as? String } == ["Ada", "Katherine", "Socrates"])
            #expect(contacts.map { $0.value(forKey: "lastName") as? String } == ["Lovelace", "Johnson", nil])
            #expect(contacts.map { $0.value(forKey: "isCustomer") as? Bool } == [false, true, false])
            #expect(contacts[1].value(forKey: "email") as? String == "katherine@example.com")
            let notes = (contacts[0].value(forKey: "notes") as? Set<NSManagedObject>) ?? []
            #expect(Set(notes.compactMap { $0.value(forKey: "text") as? String }) == ["first", "second"])
        }
        try coordinator.persistentStores.forEach { try coordinator.remove($0) }
        // Migrated once: the next open finds the new version and migrates nothing.
        let again = NSPersistentStoreCoordinator(managedObjectModel: model)
        try again.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [
                NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: infers,
            ])
        #expect(annotations.withLock { $0 }.filter { $0.contains("mapping model file") }.count == 1)
    }

    @Test func aMappingThatFailsLeavesTheStoreAsItWas() throws {
        let folder = try project(with: Self.sourceForm())
        let url = try makeVersion1Store(in: folder)
        let before = try Data(contentsOf: url)
        // A name no other suite's store has: suites share the policy's list.
        ContactNamePolicy.refusedNames.withLock { _ = $0.insert("Katherine Johnson") }
        defer { ContactNamePolicy.refusedNames.withLock { _ = $0.remove("Katherine Johnson") } }
        let model = try NSManagedObjectModel.load(contentsOf: folder.appendingPathComponent("Contacts.xcdatamodeld"))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        #expect {
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                options: [
                    NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
                ])
        } throws: { error in
            (error as NSError).userInfo[NSMigrationEntityMappingKey] as? String == "CustomerToContact"
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func damagedMappingFilesAreErrorsThatSayWhere() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "MappingModelFileTests-\(UUID().uuidString)/Bad.xcmappingmodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("xcmapping.xml")
        let (v1, v2) = try Self.versions(in: Self.folder())
        func loading(_ xml: String) -> String {
            do {
                try Data(xml.utf8).write(to: file)
                _ = try NSMappingModel.load(contentsOf: folder, sourceModel: v1, destinationModel: v2)
                return "loaded"
            } catch {
                return "\(error)"
            }
        }
        #expect(loading("<database><object").contains("xcmapping.xml"))
        #expect(loading("<database></database>").contains("no mapping model"))
        #expect(loading(#"<!DOCTYPE database [<!ENTITY a "b">]><database/>"#).contains("entity declaration"))
        let missingEntity = """
            <database><object type="XDDEVMAPPINGMODEL" id="z1"><relationship name="entitymappings" idrefs="z2"/></object>
            <object type="XDDEVENTITYMAPPING" id="z2"><attribute name="sourcename" type="string">Ghost</attribute>
            <attribute name="destinationname" type="string">Contact</attribute></object></database>
            """
        #expect(loading(missingEntity).contains("'Ghost', which the source model does not have"))
        let badExpression = """
            <database><object type="XDDEVMAPPINGMODEL" id="z1"><relationship name="entitymappings" idrefs="z2"/></object>
            <object type="XDDEVENTITYMAPPING" id="z2"><attribute name="sourcename" type="string">Note</attribute>
            <attribute name="destinationname" type="string">Note</attribute><relationship name="attributemappings" idrefs="z3"/></object>
            <object type="XDDEVATTRIBUTEMAPPING" id="z3"><attribute name="name" type="string">text</attribute>
            <attribute name="valueexpressiondata" type="binary">bm90IGFuIGFyY2hpdmU=</attribute></object></database>
            """
        #expect(loading(badExpression).contains("NoteToNote"))
        #expect(loading(badExpression).contains("archived expression that cannot be read"))
        #expect(NSMappingModel(contentsOf: folder) == nil)
        #expect(NSMappingModel(contentsOf: folder.appendingPathComponent("missing.cdm")) == nil)
        let unresolved = """
            <database><object type="XDDEVMAPPINGMODEL" id="z1"><attribute name="sourcemodelpath" type="string">Nowhere.xcdatamodel</attribute></object></database>
            """
        try Data(unresolved.utf8).write(to: file)
        #expect(throws: ModelLoadingError.self) { try NSMappingModel.load(contentsOf: folder) }
    }

    @Test func aFetchExpressionRunsItsRequestInItsContext() throws {
        let folder = try project(with: Self.compiledForm())
        let url = try makeVersion1Store(in: folder)
        let context = try makeContext(try Self.versions(in: folder).0, url: url)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Customer")
            request.predicate = NSPredicate(format: "email != nil")
            let fetch = NSFetchRequestExpression.expressionForFetch(
                NSExpression(forConstantValue: request), context: NSExpression(forVariable: "context"), countOnly: false
            )
            let found = fetch.expressionValue(with: nil, context: ["context": context]) as? [Any]
            #expect((found?.first as? NSManagedObject)?.value(forKey: "fullName") as? String == "Katherine Johnson")
            let count = try NSExpression.parse(format: "FETCH(%@, $context, YES)", argumentArray: [request])
            #expect(count.expressionType == .fetchRequest)
            #expect((count as? NSFetchRequestExpression)?.isCountOnlyRequest == true)
            #expect(count.expressionValue(with: nil, context: ["context": context]) as? Int == 1)
            #expect(fetch.expressionValue(with: nil, context: [:]) == nil, "no context, no results")
        }
        let parsed = try NSExpression.parse(
            format:
                #"FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Note", "TRUEPREDICATE"), $manager.sourceContext, NO)"#
        )
        #expect(try NSExpression.parse(format: parsed.description) == parsed)
        #expect(throws: PredicateParseError.self) { try NSExpression.parse(format: "FETCH($a, $b)") }
    }
}
