import GRDB
@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// Uniqueness constraints at save: duplicates among new objects and against the store
/// fail under the error policy with `NSConstraintConflict`s, and become upserts under the others.
@Suite struct ConstraintConflictTests {
    /// `Person` (email unique; name, age) with a to-one `team`; `Team` (name unique) with to-many `members`.
    static func model() -> NSManagedObjectModel {
        let person = ModelBuilder.entity("Person", className: "NSManagedObject")
        let team = ModelBuilder.entity("Team", className: "NSManagedObject")
        let (members, memberTeam) = ModelBuilder.pair(
            "members", from: team, toMany: true, "team", to: person, toMany: false)
        person.properties = [
            ModelBuilder.attribute("email", .stringAttributeType), ModelBuilder.attribute("name", .stringAttributeType),
            ModelBuilder.attribute("age", .integer64AttributeType), memberTeam,
        ]
        person.uniquenessConstraints = [["email"]]
        team.properties = [ModelBuilder.attribute("name", .stringAttributeType), members]
        team.uniquenessConstraints = [["name"]]
        return ModelBuilder.model(person, team)
    }

    let model = Self.model()

    @discardableResult
    private func person(
        _ context: NSManagedObjectContext, _ email: String?, name: String? = nil, age: Int64? = nil
    ) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        object.setValue(email, forKey: "email")
        if let name { object.setValue(name, forKey: "name") }
        if let age { object.setValue(age, forKey: "age") }
        return object
    }

    /// A store with one saved person (`a@x`, "old", 30); returns the context, that person and the file.
    private func seeded(
        name: String? = "old", age: Int64? = 30
    ) throws -> (NSManagedObjectContext, NSManagedObject, URL) {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        let saved = try context.performAndWait {
            let saved = person(context, "a@x", name: name, age: age)
            try context.save()
            return saved
        }
        return (context, saved, url)
    }

    private func save(_ context: NSManagedObjectContext) -> NSError? {
        context.performAndWait {
            do { try context.save(); return nil } catch { return error as NSError }
        }
    }

    @Test func errorPolicyReportsTheStoredDuplicate() throws {
        let (context, saved, url) = try seeded()
        let duplicate = context.performAndWait { person(context, "a@x", name: "new") }
        let error = try #require(save(context))
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSManagedObjectConstraintMergeError)
        let list = try #require(error.userInfo["conflictList"] as? [NSConstraintConflict])
        #expect(list.count == 1)
        let conflict = try #require(list.first)
        #expect(conflict.constraint == ["email"])
        #expect(conflict.constraintValues["email"] as? String == "a@x")
        #expect(conflict.databaseObject === saved)
        #expect(conflict.databaseSnapshot?["name"] as? String == "old")
        #expect(conflict.conflictingObjects.count == 1)
        #expect(conflict.conflictingObjects.first === duplicate)
        #expect(conflict.conflictingSnapshots.count == 1)
        #expect((error.userInfo[NSInsertedObjectsKey] as? Set<NSManagedObjectID>)?.count == 1)
        #expect(try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON") == 1)
        context.performAndWait { #expect(context.insertedObjects.count == 1) }
    }

    @Test func errorPolicyReportsDuplicatesAmongNewObjects() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        let (one, two) = context.performAndWait { (person(context, "b@x"), person(context, "b@x")) }
        let error = try #require(save(context))
        #expect(error.code == NSManagedObjectConstraintMergeError)
        let conflict = try #require((error.userInfo["conflictList"] as? [NSConstraintConflict])?.first)
        #expect(conflict.databaseObject == nil)
        #expect(conflict.conflictingObjects.count == 2)
        #expect(
            conflict.conflictingObjects.contains { $0 === one } && conflict.conflictingObjects.contains { $0 === two })
        #expect(try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON") == 0)
    }

    /// A saved row edited into another's constrained values is never deleted: under every
    /// resolving policy its constrained change is undone and its other changes are saved.
    @Test(arguments: [
        NSMergePolicyType.mergeByPropertyObjectTrumpMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType,
        .overwriteMergePolicyType, .rollbackMergePolicyType,
    ])
    func savedRowEditedIntoADuplicateKeepsItsRow(_ type: NSMergePolicyType) throws {
        let (context, _, url) = try seeded()
        let other = try context.performAndWait {
            let other = person(context, "b@x", name: "B")
            try context.save()
            return other
        }
        context.performAndWait {
            context.mergePolicy = NSMergePolicy(merge: type)
            other.setValue("a@x", forKey: "email")
            other.setValue("B, renamed", forKey: "name")
        }
        #expect(save(context) == nil)
        let rows = try GRDB.DatabaseQueue(path: url.path).read { db in
            try GRDB.Row.fetchAll(db, sql: "SELECT ZEMAIL, ZNAME FROM ZPERSON ORDER BY Z_PK").map {
                "\($0[0] as String) \($0[1] as String)"
            }
        }
        #expect(rows == ["a@x old", "b@x B, renamed"])
    }

    /// An object whose row another context deleted stays deleted under every policy; new
    /// objects pointing at it let go instead of writing a key to a missing row.
    @Test func newObjectsLetGoOfARowDeletedElsewhere() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        let team = try context.performAndWait {
            let team = NSEntityDescription.insertNewObject(forEntityName: "Team", into: context)
            team.setValue("T", forKey: "name")
            try context.save()
            return team
        }
        let other = siblingContext(of: context)
        try other.performAndWait {
            other.delete(try other.existingObject(with: team.objectID))
            try other.save()
        }
        context.performAndWait {
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            team.setValue("T, renamed", forKey: "name")
            person(context, "p@x").setValue(team, forKey: "team")
        }
        #expect(save(context) == nil)
        let (people, teams, dangling) = try GRDB.DatabaseQueue(path: url.path).read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZPERSON") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZTEAM") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZPERSON WHERE ZTEAM IS NOT NULL") ?? -1
            )
        }
        #expect(people == 1 && teams == 0)
        #expect(dangling == 0, "no key to the deleted row")
    }

    @Test func objectTrumpUpdatesTheStoredRowWithEveryValueTheNewObjectSet() throws {
        let (context, saved, url) = try seeded()
        let savedKey = context.performAndWait { saved.objectID.primaryKey }
        let duplicate = context.performAndWait { () -> NSManagedObject in
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            return person(context, "a@x", name: "new")
        }
        #expect(save(context) == nil)
        let row = try #require(try ConflictFixture.row(url, "SELECT Z_PK, ZNAME, ZAGE FROM ZPERSON"))
        #expect(try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON") == 1)
        #expect(row[0] as Int64 == savedKey, "the stored row survives, under its own ID")
        #expect(row[1] as String? == "new", "set on the new object: its value wins")
        #expect(row[2] as Int64? == 30, "left nil on the new object: the stored value stays")
        context.performAndWait {
            #expect(duplicate.managedObjectContext == nil)
            #expect(saved.value(forKey: "name") as? String == "new")
            #expect(!context.hasChanges)
        }
    }

    @Test func storeTrumpKeepsStoredValuesAndFillsTheMissingOnes() throws {
        let (context, _, url) = try seeded(age: nil)
        context.performAndWait {
            context.mergePolicy = NSMergeByPropertyStoreTrumpMergePolicy
            person(context, "a@x", name: "new", age: 41)
        }
        #expect(save(context) == nil)
        let row = try #require(try ConflictFixture.row(url, "SELECT ZNAME, ZAGE FROM ZPERSON"))
        #expect(try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON") == 1)
        #expect(row[0] as String? == "old")
        #expect(row[1] as Int64? == 41)
    }

    @Test func overwriteReplacesEveryStoredValue() throws {
        let (context, _, url) = try seeded()
        context.performAndWait {
            context.mergePolicy = NSOverwriteMergePolicy
            person(context, "a@x", name: "new")
        }
        #expect(save(context) == nil)
        let row = try #require(try ConflictFixture.row(url, "SELECT ZNAME, ZAGE FROM ZPERSON"))
        #expect(try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON") == 1)
        #expect(row[0] as String? == "new")
        #expect(row[1] as Int64? == nil, "nil on the new object replaces the stored value")
    }

    @Test func rollbackDropsTheNewObjectAndKeepsTheStoredOne() throws {
        let (context, _, url) = try seeded()
        let duplicate = context.performAndWait { () -> NSManagedObject in
            context.mergePolicy = NSRollbackMergePolicy
            person(context, "c@x", name: "other")
            return person(context, "a@x", name: "new")
        }
        #expect(save(context) == nil)
        #expect(try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON") == 2)
        #expect(
            try ConflictFixture.integer(
                url, "SELECT COUNT(*) FROM ZPERSON WHERE ZEMAIL = 'a@x' AND ZNAME = 'old' AND ZAGE = 30") == 1)
        context.performAndWait { #expect(duplicate.managedObjectContext == nil) }
    }

    @Test func duplicatesAmongNewObjectsBecomeOneRow() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        context.performAndWait {
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            person(context, "d@x", name: "first", age: 1)
            person(context, "d@x", name: "second")
        }
        #expect(save(context) == nil)
        #expect(try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON") == 1)
        #expect(
            try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON WHERE ZNAME = 'second' AND ZAGE = 1") == 1)
    }

    @Test func relatedObjectsFollowTheSurvivor() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let red = NSEntityDescription.insertNewObject(forEntityName: "Team", into: context)
            red.setValue("red", forKey: "name")
            person(context, "p1@x").setValue(red, forKey: "team")
            try context.save()
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            let again = NSEntityDescription.insertNewObject(forEntityName: "Team", into: context)
            again.setValue("red", forKey: "name")
            person(context, "p2@x").setValue(again, forKey: "team")
            try context.save()
            #expect(red.mutableSetValue(forKey: "members").count == 2)
            #expect(again.managedObjectContext == nil)
        }
        #expect(try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZTEAM") == 1)
        #expect(
            try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON WHERE ZTEAM = (SELECT Z_PK FROM ZTEAM)") == 2
        )
    }

    @Test func changingASavedObjectOntoTakenValuesIsAConflict() throws {
        let (context, saved, url) = try seeded()
        let other = try context.performAndWait {
            let other = person(context, "b@x")
            try context.save()
            other.setValue("a@x", forKey: "email")
            return other
        }
        let error = save(context)
        #expect(error?.code == NSManagedObjectConstraintMergeError)
        let conflict = (error?.userInfo["conflictList"] as? [NSConstraintConflict])?.first
        #expect(conflict?.databaseObject === saved)
        #expect(conflict?.conflictingObjects.first === other)
        #expect(try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON WHERE ZEMAIL = 'a@x'") == 1)
    }

    @Test func valuesFreedInTheSameSaveAreNotConflicts() throws {
        let (context, saved, url) = try seeded()
        try context.performAndWait {
            context.delete(saved)
            let replacement = person(context, "a@x", name: "replacement")
            try context.save()
            let moved = person(context, "e@x")
            try context.save()
            // Swapping values between two saved objects in one save is fine too.
            replacement.setValue("f@x", forKey: "email")
            moved.setValue("a@x", forKey: "email")
            try context.save()
        }
        #expect(
            try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON WHERE ZEMAIL = 'a@x' AND ZNAME IS NULL") == 1
        )
        #expect(
            try ConflictFixture.integer(
                url, "SELECT COUNT(*) FROM ZPERSON WHERE ZEMAIL = 'f@x' AND ZNAME = 'replacement'") == 1)
    }

    @Test func nilValuesNeverConflict() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        context.performAndWait {
            person(context, nil)
            person(context, nil)
        }
        #expect(save(context) == nil)
        #expect(try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON") == 2)
    }

    @Test func anotherCoordinatorsRowIsFoundAsOtherProcessesWouldBe() throws {
        let url = temporaryStoreURL()
        let (first, second) = try ConflictFixture.contexts(model, url: url, separateCoordinators: true)
        try first.performAndWait {
            person(first, "g@x", name: "first")
            try first.save()
        }
        second.performAndWait { _ = person(second, "g@x", name: "second") }
        let error = save(second)
        #expect(error?.code == NSManagedObjectConstraintMergeError)
        let conflict = (error?.userInfo["conflictList"] as? [NSConstraintConflict])?.first
        #expect(conflict?.databaseObject?.managedObjectContext === second)
        second.performAndWait { second.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy }
        #expect(save(second) == nil)
        #expect(
            try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON WHERE ZEMAIL = 'g@x' AND ZNAME = 'second'")
                == 1)
        #expect(try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON") == 1)
    }

    /// A custom policy overriding the constraint hook sees the conflicts and may defer to `super`.
    final class KeepStoredNames: NSMergePolicy, @unchecked Sendable {
        var conflicts = 0
        override func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
            conflicts += list.count
            for conflict in list {
                guard let stored = conflict.databaseObject else { continue }
                for object in conflict.conflictingObjects {
                    object.setValue(stored.value(forKey: "name"), forKey: "name")
                }
            }
            try super.resolve(constraintConflicts: list)
        }
    }

    @Test func customConstraintPoliciesWork() throws {
        let (context, _, url) = try seeded()
        let policy = KeepStoredNames(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        context.performAndWait {
            context.mergePolicy = policy
            person(context, "a@x", name: "new", age: 50)
        }
        #expect(save(context) == nil)
        #expect(policy.conflicts == 1)
        #expect(try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZPERSON WHERE ZNAME = 'old' AND ZAGE = 50") == 1)
    }
}

extension ConstraintConflictTests {
    /// Each constraint gets an index, so the check every save makes reads it instead of the table.
    @Test func constraintChecksUseAnIndex() throws {
        let (_, _, url) = try seeded()
        let db = try DatabaseQueue(path: url.path)
        try db.read { db in
            let names = try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%CONSTRAINT%' ORDER BY name")
            #expect(names == ["Z_Person_CONSTRAINT_email", "Z_Team_CONSTRAINT_name"])
            let plan = try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN SELECT Z_PK FROM ZPERSON WHERE Z_ENT IN (1) AND ZEMAIL = ?",
                arguments: ["a@x"]
            )
            .map { $0["detail"] as String? ?? "" }.joined(separator: " ")
            #expect(plan.contains("Z_Person_CONSTRAINT_email"))
        }
    }
}
