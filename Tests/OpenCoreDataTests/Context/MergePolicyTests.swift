import GRDB
@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// Helpers shared by the conflict and merge suites.
enum ConflictFixture {
    /// `Account`: name, balance (Int64), memo; `Ledger` ↔ accounts (to-many, nullify).
    static func accountsModel() -> NSManagedObjectModel {
        let account = ModelBuilder.entity("Account", className: "NSManagedObject")
        let ledger = ModelBuilder.entity("Ledger", className: "NSManagedObject")
        let (accounts, accountLedger) = ModelBuilder.pair(
            "accounts", from: ledger, toMany: true, "ledger", to: account, toMany: false)
        account.properties = [
            ModelBuilder.attribute("name", .stringAttributeType),
            ModelBuilder.attribute("balance", .integer64AttributeType),
            ModelBuilder.attribute("memo", .stringAttributeType), accountLedger,
        ]
        ledger.properties = [ModelBuilder.attribute("title", .stringAttributeType), accounts]
        return ModelBuilder.model(account, ledger)
    }

    /// Two contexts on one store file: on one coordinator, or on two (as two processes are).
    static func contexts(
        _ model: NSManagedObjectModel, url: URL, separateCoordinators: Bool
    ) throws -> (NSManagedObjectContext, NSManagedObjectContext) {
        let first = try makeContext(model, url: url)
        let second = separateCoordinators ? try makeContext(model, url: url) : siblingContext(of: first)
        return (first, second)
    }

    /// The object for `id` (an ID of any coordinator on the store) in `context`, loaded.
    static func load(_ id: NSManagedObjectID, in context: NSManagedObjectContext) throws -> NSManagedObject {
        let local = context.persistentStoreCoordinator!.managedObjectID(forURIRepresentation: id.uriRepresentation())!
        return try context.existingObject(with: local)
    }

    /// One row of the store file read over a plain connection, as another process would.
    static func row(_ url: URL, _ sql: String) throws -> Row? {
        try DatabaseQueue(path: url.path).read { try Row.fetchOne($0, sql: sql) }
    }

    /// The account most conflict tests start from, `name = base, balance = 10, memo = m0`,
    /// inserted and saved in `context`.
    static func saveBaseAccount(in context: NSManagedObjectContext) throws -> NSManagedObject {
        try context.performAndWait {
            let account = NSEntityDescription.insertNewObject(forEntityName: "Account", into: context)
            account.setValue("base", forKey: "name")
            account.setValue(Int64(10), forKey: "balance")
            account.setValue("m0", forKey: "memo")
            try context.save()
            return account
        }
    }

    static func integer(_ url: URL, _ sql: String) throws -> Int {
        try DatabaseQueue(path: url.path).read { try Int.fetchOne($0, sql: sql) ?? -1 }
    }
}

/// Optimistic locking: two contexts (on one coordinator, or two coordinators on one file)
/// change the same object; the second save meets the conflict and its merge policy decides,
/// property by property, what the store and the object end with.
@Suite struct MergePolicyTests {
    /// Every store-level case of saving, relationships and merge policies, as the PostgreSQL
    /// engine runs them too.
    @Test(arguments: SaveBehaviour.allCases)
    func onSQLite(_ behaviour: SaveBehaviour) throws {
        try behaviour.run(on: .sqlite)
    }

    let model = ConflictFixture.accountsModel()

    /// The standard scenario. The store holds `name = base, balance = 10, memo = m0`
    /// (version 1); `first` reads it; `second` changes name and memo and saves (version 2);
    /// then `first` changes name and balance and saves under `policy`. `first` also
    /// inserts an unrelated object in the same save. Returns the outcome of that save.
    private func conflictingSave(
        policy: Any, separateCoordinators: Bool, file: URL = temporaryStoreURL()
    )
        throws -> (error: NSError?, mine: NSManagedObject, first: NSManagedObjectContext, url: URL)
    {
        let (first, second) = try ConflictFixture.contexts(model, url: file, separateCoordinators: separateCoordinators)
        let mine = try ConflictFixture.saveBaseAccount(in: first)
        let id = first.performAndWait { mine.objectID }
        try second.performAndWait {
            let theirs = try ConflictFixture.load(id, in: second)
            theirs.setValue("theirs", forKey: "name")
            theirs.setValue("m-theirs", forKey: "memo")
            try second.save()
        }
        let error: NSError? = first.performAndWait {
            first.mergePolicy = policy
            mine.setValue("mine", forKey: "name")
            mine.setValue(Int64(20), forKey: "balance")
            let other = NSEntityDescription.insertNewObject(forEntityName: "Ledger", into: first)
            other.setValue("unrelated", forKey: "title")
            do { try first.save(); return nil } catch { return error as NSError }
        }
        return (error, mine, first, file)
    }

    private func stored(_ url: URL) throws -> (name: String?, balance: Int64?, memo: String?, version: Int64) {
        let row = try #require(try ConflictFixture.row(url, "SELECT ZNAME, ZBALANCE, ZMEMO, Z_OPT FROM ZACCOUNT"))
        return (row[0], row[1], row[2], row[3])
    }

    @Test(arguments: [false, true])
    func errorPolicyFailsWithTheConflictAndWritesNothing(separateCoordinators: Bool) throws {
        let outcome = try conflictingSave(policy: NSErrorMergePolicy, separateCoordinators: separateCoordinators)
        let error = try #require(outcome.error)
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSManagedObjectMergeError)
        let list = try #require(error.userInfo["conflictList"] as? [NSMergeConflict])
        #expect(list.count == 1)
        let conflict = try #require(list.first)
        #expect(conflict.sourceObject === outcome.mine)
        #expect(conflict.oldVersionNumber == 1)
        #expect(conflict.newVersionNumber == 2)
        #expect(conflict.persistedSnapshot?["name"] as? String == "theirs")
        #expect(conflict.persistedSnapshot?["memo"] as? String == "m-theirs")
        #expect(conflict.cachedSnapshot?["name"] as? String == "base")
        #expect(conflict.objectSnapshot?["name"] as? String == "mine")
        #expect((conflict.objectSnapshot?["balance"] as? NSNumber)?.int64Value == 20)
        #expect(conflict.persistedSnapshot?["ledger"] is NSNull)
        #expect((error.userInfo[NSUpdatedObjectsKey] as? Set<NSManagedObjectID>) == [outcome.mine.objectID])
        // Nothing of the failed save reached the store, and the context keeps its changes.
        let row = try stored(outcome.url)
        #expect(row.name == "theirs" && row.balance == 10 && row.memo == "m-theirs" && row.version == 2)
        #expect(try ConflictFixture.integer(outcome.url, "SELECT COUNT(*) FROM ZLEDGER") == 0)
        outcome.first.performAndWait {
            #expect(outcome.first.hasChanges)
            #expect(outcome.mine.value(forKey: "name") as? String == "mine")
        }
    }

    @Test(arguments: [false, true])
    func objectTrumpKeepsInMemoryChangesAndTakesTheOthers(separateCoordinators: Bool) throws {
        let outcome = try conflictingSave(
            policy: NSMergeByPropertyObjectTrumpMergePolicy, separateCoordinators: separateCoordinators)
        #expect(outcome.error == nil)
        let row = try stored(outcome.url)
        #expect(row.name == "mine", "changed on both sides: the in-memory value wins")
        #expect(row.balance == 20, "changed only in memory")
        #expect(row.memo == "m-theirs", "changed only in the store: kept")
        #expect(row.version == 3)
        #expect(try ConflictFixture.integer(outcome.url, "SELECT COUNT(*) FROM ZLEDGER") == 1)
        outcome.first.performAndWait {
            #expect(outcome.mine.value(forKey: "name") as? String == "mine")
            #expect(outcome.mine.value(forKey: "memo") as? String == "m-theirs")
            #expect(!outcome.first.hasChanges)
        }
    }

    @Test(arguments: [false, true])
    func storeTrumpTakesStoreChangesAndKeepsTheRest(separateCoordinators: Bool) throws {
        let outcome = try conflictingSave(
            policy: NSMergeByPropertyStoreTrumpMergePolicy, separateCoordinators: separateCoordinators)
        #expect(outcome.error == nil)
        let row = try stored(outcome.url)
        #expect(row.name == "theirs", "changed on both sides: the store's value wins")
        #expect(row.balance == 20, "changed only in memory: kept")
        #expect(row.memo == "m-theirs")
        #expect(row.version == 3)
        outcome.first.performAndWait {
            #expect(outcome.mine.value(forKey: "name") as? String == "theirs")
            #expect((outcome.mine.value(forKey: "balance") as? NSNumber)?.int64Value == 20)
        }
    }

    @Test(arguments: [false, true])
    func overwriteWritesTheWholeInMemoryObject(separateCoordinators: Bool) throws {
        let outcome = try conflictingSave(policy: NSOverwriteMergePolicy, separateCoordinators: separateCoordinators)
        #expect(outcome.error == nil)
        let row = try stored(outcome.url)
        #expect(row.name == "mine")
        #expect(row.balance == 20)
        #expect(row.memo == "m0", "the in-memory value replaces the other context's change")
        #expect(row.version == 3)
    }

    @Test(arguments: [false, true])
    func rollbackDiscardsTheConflictingChangesAndSavesTheRest(separateCoordinators: Bool) throws {
        let outcome = try conflictingSave(policy: NSRollbackMergePolicy, separateCoordinators: separateCoordinators)
        #expect(outcome.error == nil)
        let row = try stored(outcome.url)
        #expect(row.name == "theirs" && row.balance == 10 && row.memo == "m-theirs")
        #expect(row.version == 2, "the conflicting row is not written")
        #expect(
            try ConflictFixture.integer(outcome.url, "SELECT COUNT(*) FROM ZLEDGER") == 1, "other changes are saved")
        outcome.first.performAndWait {
            #expect(outcome.mine.value(forKey: "name") as? String == "theirs")
            #expect((outcome.mine.value(forKey: "balance") as? NSNumber)?.int64Value == 10)
            #expect(!outcome.first.hasChanges)
        }
    }

    @Test func policiesAreSharedObjectsWithApplesTypes() {
        #expect(NSMergePolicy.error === NSErrorMergePolicy)
        #expect(NSMergePolicy.rollback === NSRollbackMergePolicy)
        #expect(NSMergePolicy.overwrite === NSOverwriteMergePolicy)
        #expect(NSMergePolicy.mergeByPropertyObjectTrump === NSMergeByPropertyObjectTrumpMergePolicy)
        #expect(NSMergePolicy.mergeByPropertyStoreTrump === NSMergeByPropertyStoreTrumpMergePolicy)
        #expect(NSMergePolicy.error.mergeType == .errorMergePolicyType)
        #expect(NSMergePolicy.mergeByPropertyStoreTrump.mergeType.rawValue == 1)
        #expect(NSMergePolicy.mergeByPropertyObjectTrump.mergeType.rawValue == 2)
        #expect(NSMergePolicy.overwrite.mergeType.rawValue == 3)
        #expect(NSMergePolicy.rollback.mergeType.rawValue == 4)
        #expect(NSMergePolicy(merge: .overwriteMergePolicyType).mergeType == .overwriteMergePolicyType)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        #expect(context.mergePolicy as AnyObject === NSErrorMergePolicy)
    }

    @Test func everyConflictingObjectIsReportedNotJustTheFirst() throws {
        let url = temporaryStoreURL()
        let (first, second) = try ConflictFixture.contexts(model, url: url, separateCoordinators: true)
        let objects = try first.performAndWait {
            let objects = (0..<3).map { index in
                let account = NSEntityDescription.insertNewObject(forEntityName: "Account", into: first)
                account.setValue("a\(index)", forKey: "name")
                return account
            }
            try first.save()
            return objects
        }
        let ids = first.performAndWait { objects.map(\.objectID) }
        try second.performAndWait {
            for id in ids { try ConflictFixture.load(id, in: second).setValue("changed", forKey: "memo") }
            try second.save()
        }
        let error = first.performAndWait { () -> NSError? in
            objects[0].setValue("x", forKey: "memo")
            objects[1].setValue("y", forKey: "memo")
            first.delete(objects[2])
            do { try first.save(); return nil } catch { return error as NSError }
        }
        #expect(error?.code == NSManagedObjectMergeError)
        let list = error?.userInfo["conflictList"] as? [NSMergeConflict] ?? []
        #expect(Set(list.map { ObjectIdentifier($0.sourceObject) }) == Set(objects.map(ObjectIdentifier.init)))
        #expect(
            try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZACCOUNT WHERE ZMEMO = 'changed' AND Z_OPT = 2") == 3
        )
    }

    /// An account (`name = base`) saved by the first of two contexts, then changed by
    /// `change` in the second, which saves. Returns the file, the first context and its object.
    private func savedThenChangedElsewhere(
        separateCoordinators: Bool, _ change: (NSManagedObject) -> Void
    ) throws
        -> (URL, NSManagedObjectContext, NSManagedObject)
    {
        let url = temporaryStoreURL()
        let (first, second) = try ConflictFixture.contexts(model, url: url, separateCoordinators: separateCoordinators)
        let mine = try first.performAndWait {
            let account = NSEntityDescription.insertNewObject(forEntityName: "Account", into: first)
            account.setValue("base", forKey: "name")
            try first.save()
            return account
        }
        let id = first.performAndWait { mine.objectID }
        try second.performAndWait {
            change(try ConflictFixture.load(id, in: second))
            try second.save()
        }
        return (url, first, mine)
    }

    @Test(arguments: [false, true])
    func deletingARowChangedElsewhere(separateCoordinators: Bool) throws {
        for (policy, survives) in [
            (NSMergeByPropertyObjectTrumpMergePolicy, false), (NSOverwriteMergePolicy, false),
            (NSMergeByPropertyStoreTrumpMergePolicy, true), (NSRollbackMergePolicy, true),
        ] {
            let (url, first, mine) = try savedThenChangedElsewhere(separateCoordinators: separateCoordinators) {
                $0.setValue("theirs", forKey: "name")
            }
            try first.performAndWait {
                first.mergePolicy = policy
                first.delete(mine)
                try first.save()
                #expect((mine.managedObjectContext === first) == survives, "\(policy)")
                if survives {
                    #expect(!mine.isDeleted)
                    #expect(mine.value(forKey: "name") as? String == "theirs")
                }
            }
            #expect(
                try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZACCOUNT WHERE ZNAME = 'theirs'")
                    == (survives ? 1 : 0), "\(policy)")
        }
    }

    @Test(arguments: [false, true])
    func updatingARowDeletedElsewhere(separateCoordinators: Bool) throws {
        for policy in [
            NSErrorMergePolicy, NSMergeByPropertyObjectTrumpMergePolicy, NSMergeByPropertyStoreTrumpMergePolicy,
            NSOverwriteMergePolicy, NSRollbackMergePolicy,
        ] {
            let (url, first, mine) = try savedThenChangedElsewhere(separateCoordinators: separateCoordinators) {
                $0.managedObjectContext?.delete($0)
            }
            let error = first.performAndWait { () -> NSError? in
                first.mergePolicy = policy
                mine.setValue("mine", forKey: "name")
                do { try first.save(); return nil } catch { return error as NSError }
            }
            if policy === NSErrorMergePolicy {
                #expect(error?.code == NSManagedObjectMergeError)
                let conflict = (error?.userInfo["conflictList"] as? [NSMergeConflict])?.first
                #expect(conflict?.newVersionNumber == 0)
                #expect(conflict?.persistedSnapshot == nil)
            } else {
                #expect(error == nil, "\(policy)")
                first.performAndWait {
                    #expect(mine.isDeleted)
                    #expect(mine.managedObjectContext == nil)
                }
            }
            #expect(
                try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZACCOUNT") == 0,
                "a row deleted elsewhere is not brought back")
        }
    }

    /// A subclass overriding the locking hook sees every conflict and can defer to `super`.
    final class RecordingPolicy: NSMergePolicy, @unchecked Sendable {
        var seen: [NSMergeConflict] = []
        override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
            seen += list
            try super.resolve(optimisticLockingConflicts: list)
        }
    }

    @Test func customPoliciesAreAskedAndMayDeferToTheirType() throws {
        let policy = RecordingPolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        let outcome = try conflictingSave(policy: policy, separateCoordinators: false)
        #expect(outcome.error == nil)
        #expect(policy.seen.count == 1)
        #expect(policy.seen.first?.sourceObject === outcome.mine)
        #expect(try stored(outcome.url).name == "mine")
    }

    /// A policy that resolves nothing: the save fails after its rounds; nothing is overwritten.
    final class IdlePolicy: NSMergePolicy, @unchecked Sendable {
        var calls = 0
        override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws { calls += 1 }
    }

    @Test func aPolicyThatResolvesNothingCannotLoseAnUpdate() throws {
        let policy = IdlePolicy(merge: .overwriteMergePolicyType)
        let outcome = try conflictingSave(policy: policy, separateCoordinators: true)
        #expect(outcome.error?.code == NSManagedObjectMergeError)
        #expect((outcome.error?.userInfo["conflictList"] as? [NSMergeConflict])?.count == 1)
        #expect(policy.calls == NSManagedObjectContext.conflictResolutionRounds - 1)
        #expect(try stored(outcome.url).name == "theirs")
    }

    @Test func aMergePolicyOfTheWrongTypeFailsTheSaveClearly() throws {
        let outcome = try conflictingSave(policy: "not a policy", separateCoordinators: false)
        #expect(outcome.error?.code == NSCoreDataError)
        #expect(outcome.error?.localizedDescription.contains("not an NSMergePolicy") == true)
        #expect(try stored(outcome.url).name == "theirs")
    }

    /// Ledgers `one` and `two`, both with their accounts loaded in `first`. `first` moves
    /// the account to `one`; another coordinator moved it to `two` and saved. Store trump
    /// and rollback take the stored `two`: the ledgers' members follow in memory.
    @Test(arguments: [1, 4])
    func aToOneTakenFromTheStoreTakesItsInversesAlong(policyIndex: Int) throws {
        let policy = policyIndex == 1 ? NSMergeByPropertyStoreTrumpMergePolicy : NSRollbackMergePolicy
        let url = temporaryStoreURL()
        let (first, second) = try ConflictFixture.contexts(model, url: url, separateCoordinators: true)
        let (account, one, two) = try first.performAndWait {
            let account = NSEntityDescription.insertNewObject(forEntityName: "Account", into: first)
            account.setValue("a", forKey: "name")
            let ledgers = ["one", "two"].map { title in
                let ledger = NSEntityDescription.insertNewObject(forEntityName: "Ledger", into: first)
                ledger.setValue(title, forKey: "title")
                return ledger
            }
            try first.save()
            // Loaded now, so the other context's move happens behind their back.
            for ledger in ledgers { #expect(ledger.mutableSetValue(forKey: "accounts").count == 0) }
            return (account, ledgers[0], ledgers[1])
        }
        let ids = first.performAndWait { (account.objectID, two.objectID) }
        try second.performAndWait {
            try ConflictFixture.load(ids.0, in: second).setValue(
                try ConflictFixture.load(ids.1, in: second), forKey: "ledger")
            try second.save()
        }
        try first.performAndWait {
            first.mergePolicy = policy
            account.setValue(one, forKey: "ledger")
            try first.save()
            #expect(account.value(forKey: "ledger") as? NSManagedObject === two)
            #expect(!one.mutableSetValue(forKey: "accounts").contains(account))
            #expect(two.mutableSetValue(forKey: "accounts").contains(account))
            #expect(!first.hasChanges)
        }
        #expect(
            try ConflictFixture.integer(
                url, "SELECT COUNT(*) FROM ZACCOUNT a JOIN ZLEDGER l ON a.ZLEDGER = l.Z_PK WHERE l.ZTITLE = 'two'") == 1
        )
    }

    /// A deleted account whose row changed elsewhere comes back under store trump and
    /// rollback: its ledger, which the delete's nullify rule emptied, gets it back.
    @Test(arguments: [1, 4])
    func anUndeletedObjectReturnsToItsInverses(policyIndex: Int) throws {
        let policy = policyIndex == 1 ? NSMergeByPropertyStoreTrumpMergePolicy : NSRollbackMergePolicy
        let url = temporaryStoreURL()
        let (first, second) = try ConflictFixture.contexts(model, url: url, separateCoordinators: true)
        let (account, ledger) = try first.performAndWait {
            let account = NSEntityDescription.insertNewObject(forEntityName: "Account", into: first)
            let ledger = NSEntityDescription.insertNewObject(forEntityName: "Ledger", into: first)
            account.setValue(ledger, forKey: "ledger")
            try first.save()
            return (account, ledger)
        }
        let id = first.performAndWait { account.objectID }
        try second.performAndWait {
            try ConflictFixture.load(id, in: second).setValue("theirs", forKey: "name")
            try second.save()
        }
        try first.performAndWait {
            first.mergePolicy = policy
            first.delete(account)
            first.processPendingChanges()
            #expect(ledger.mutableSetValue(forKey: "accounts").count == 0, "nullified by the delete")
            try first.save()
            #expect(!account.isDeleted && account.value(forKey: "name") as? String == "theirs")
            #expect(ledger.mutableSetValue(forKey: "accounts").contains(account))
            #expect(!first.hasChanges)
        }
        #expect(try ConflictFixture.integer(url, "SELECT COUNT(*) FROM ZACCOUNT WHERE ZLEDGER IS NOT NULL") == 1)
    }

    @Test func valuesAPolicyMergedAreValidatedBeforeTheyAreWritten() throws {
        let model = GuardedAccount.model()
        let url = temporaryStoreURL()
        let (first, second) = try ConflictFixture.contexts(model, url: url, separateCoordinators: true)
        let mine = try first.performAndWait {
            let account = GuardedAccount(context: first)
            account.name = "base"
            account.memo = "m0"
            try first.save()
            return account
        }
        let id = first.performAndWait { mine.objectID }
        try second.performAndWait {
            try ConflictFixture.load(id, in: second).setValue("same", forKey: "memo")
            try second.save()
        }
        let error = first.performAndWait { () -> NSError? in
            first.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            mine.name = "same"
            do { try first.save(); return nil } catch { return error as NSError }
        }
        #expect(error?.code == NSManagedObjectValidationError, "each side alone is valid; merged, name equals memo")
        let row = try #require(try ConflictFixture.row(url, "SELECT ZNAME, ZMEMO FROM ZGUARDEDACCOUNT"))
        #expect(row[0] as String? == "base" && row[1] as String? == "same", "the merged object was not written")
    }

    @Test func savesWithoutConflictsNeedNoPolicy() throws {
        let context = try makeContext(model)
        try context.performAndWait {
            let account = NSEntityDescription.insertNewObject(forEntityName: "Account", into: context)
            account.setValue("a", forKey: "name")
            try context.save()
            account.setValue("b", forKey: "name")
            try context.save()
            context.delete(account)
            try context.save()
        }
    }

    @Test func deletingARowChangedElsewhereIsAConflict() throws {
        let url = temporaryStoreURL()
        let model = ModelBuilder.notesModel()
        let first = try makeContext(model, url: url)
        let second = try makeContext(model, url: url)
        // The first context keeps its object (and so its snapshot, version 1) alive, as an app would.
        let kept = try first.performAndWait {
            let note = Note(context: first)
            note.text = "v1"
            try first.save()
            return note
        }
        let id = first.performAndWait { kept.objectID }
        try second.performAndWait {
            let note = try second.existingObject(
                with: second.persistentStoreCoordinator!.managedObjectID(forURIRepresentation: id.uriRepresentation())!)
            note.setValue("v2", forKey: "text")
            try second.save()
        }
        first.performAndWait {
            first.delete(kept)
            let error = #expect(throws: NSError.self) { try first.save() }
            #expect(error?.code == NSManagedObjectMergeError)
        }
    }
}
