@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// A child context's save meets conflicts with its parent: an object the child changes or
/// deletes whose values in the parent changed (or which the parent deleted) since the
/// child read it. The child's merge policy decides, the parent standing where the store
/// stands for a root context.
@Suite struct ChildMergePolicyTests {
    let model = ConflictFixture.accountsModel()

    private func child(of parent: NSManagedObjectContext, policy: Any = NSErrorMergePolicy) -> NSManagedObjectContext {
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        child.performAndWait { child.mergePolicy = policy }
        return child
    }

    /// A root context holding one saved account: `name = base, balance = 10, memo = m0`.
    private func savedAccount() throws -> (NSManagedObjectContext, NSManagedObjectID) {
        let parent = try makeContext(model)
        let account = try ConflictFixture.saveBaseAccount(in: parent)
        return (parent, parent.performAndWait { account.objectID })
    }

    private struct Values: Equatable {
        var name: String?
        var balance: Int64?
        var memo: String?
    }

    private func values(_ id: NSManagedObjectID, in context: NSManagedObjectContext) -> Values {
        context.performAndWait {
            let object = context.object(with: id)
            return Values(
                name: object.value(forKey: "name") as? String,
                balance: (object.value(forKey: "balance") as? NSNumber)?.int64Value,
                memo: object.value(forKey: "memo") as? String)
        }
    }

    /// The standard scenario: the child reads the account; then the parent changes name and
    /// memo (unsaved); then the child changes name and balance, inserts an unrelated ledger,
    /// and saves under `policy`.
    private func conflictingChildSave(
        policy: Any
    ) throws
        -> (
            error: NSError?, parent: NSManagedObjectContext, child: NSManagedObjectContext, id: NSManagedObjectID,
            mine: NSManagedObject
        )
    {
        let (parent, id) = try savedAccount()
        let child = child(of: parent, policy: policy)
        let mine = try child.performAndWait { try child.existingObject(with: id) }
        parent.performAndWait {
            let theirs = parent.object(with: id)
            theirs.setValue("theirs", forKey: "name")
            theirs.setValue("m-theirs", forKey: "memo")
        }
        let error: NSError? = child.performAndWait {
            mine.setValue("mine", forKey: "name")
            mine.setValue(Int64(20), forKey: "balance")
            NSEntityDescription.insertNewObject(forEntityName: "Ledger", into: child).setValue(
                "unrelated", forKey: "title")
            do { try child.save(); return nil } catch { return error as NSError }
        }
        return (error, parent, child, id, mine)
    }

    private func parentInsertedLedgers(_ parent: NSManagedObjectContext) -> Int {
        parent.performAndWait { parent.insertedObjects.filter { $0.entity.name == "Ledger" }.count }
    }

    @Test func errorPolicyFailsWithTheParentsValuesAndChangesNothing() throws {
        let outcome = try conflictingChildSave(policy: NSErrorMergePolicy)
        let error = try #require(outcome.error)
        #expect(error.domain == NSCocoaErrorDomain && error.code == NSManagedObjectMergeError)
        #expect(error.localizedDescription.contains("parent context"))
        let list = try #require(error.userInfo["conflictList"] as? [NSMergeConflict])
        #expect(list.count == 1)
        let conflict = try #require(list.first)
        #expect(conflict.sourceObject === outcome.mine)
        #expect(conflict.persistedSnapshot == nil, "the conflict is with the parent, not the store")
        #expect(conflict.cachedSnapshot?["name"] as? String == "theirs")
        #expect(conflict.cachedSnapshot?["memo"] as? String == "m-theirs")
        #expect((conflict.cachedSnapshot?["balance"] as? NSNumber)?.int64Value == 10)
        #expect(conflict.objectSnapshot?["name"] as? String == "mine")
        #expect((conflict.objectSnapshot?["balance"] as? NSNumber)?.int64Value == 20)
        #expect(conflict.oldVersionNumber == 1 && conflict.newVersionNumber == 1)
        #expect((error.userInfo[NSUpdatedObjectsKey] as? Set<NSManagedObjectID>) == [outcome.id])
        // Nothing of the child's save reached the parent; the child keeps its changes.
        #expect(values(outcome.id, in: outcome.parent) == Values(name: "theirs", balance: 10, memo: "m-theirs"))
        #expect(parentInsertedLedgers(outcome.parent) == 0)
        outcome.child.performAndWait {
            #expect(outcome.child.hasChanges)
            #expect(outcome.mine.value(forKey: "name") as? String == "mine")
        }
    }

    @Test func storeTrumpLetsTheParentWinWhereBothChanged() throws {
        let outcome = try conflictingChildSave(policy: NSMergeByPropertyStoreTrumpMergePolicy)
        #expect(outcome.error == nil)
        let expected = Values(name: "theirs", balance: 20, memo: "m-theirs")
        #expect(
            values(outcome.id, in: outcome.parent) == expected, "name: the parent's; balance: only the child changed it"
        )
        #expect(values(outcome.id, in: outcome.child) == expected)
        #expect(parentInsertedLedgers(outcome.parent) == 1)
        outcome.child.performAndWait { #expect(!outcome.child.hasChanges) }
    }

    @Test func objectTrumpLetsTheChildWinWhereBothChanged() throws {
        let outcome = try conflictingChildSave(policy: NSMergeByPropertyObjectTrumpMergePolicy)
        #expect(outcome.error == nil)
        let expected = Values(name: "mine", balance: 20, memo: "m-theirs")
        #expect(values(outcome.id, in: outcome.parent) == expected, "memo: only the parent changed it, so it stays")
        #expect(values(outcome.id, in: outcome.child) == expected)
        #expect(parentInsertedLedgers(outcome.parent) == 1)
        // The parent's own save then meets no conflict with the store.
        try outcome.parent.performAndWait { try outcome.parent.save() }
        let reader = siblingContext(of: outcome.parent)
        #expect(values(outcome.id, in: reader) == expected)
    }

    @Test func overwritePushesTheChildsWholeObject() throws {
        let outcome = try conflictingChildSave(policy: NSOverwriteMergePolicy)
        #expect(outcome.error == nil)
        #expect(values(outcome.id, in: outcome.parent) == Values(name: "mine", balance: 20, memo: "m0"))
        #expect(parentInsertedLedgers(outcome.parent) == 1)
    }

    @Test func rollbackDropsTheChildsConflictingChangesAndPushesTheRest() throws {
        let outcome = try conflictingChildSave(policy: NSRollbackMergePolicy)
        #expect(outcome.error == nil)
        let expected = Values(name: "theirs", balance: 10, memo: "m-theirs")
        #expect(values(outcome.id, in: outcome.parent) == expected)
        #expect(values(outcome.id, in: outcome.child) == expected, "the child reloads the parent's values")
        #expect(parentInsertedLedgers(outcome.parent) == 1, "the child's other changes are pushed")
        outcome.child.performAndWait { #expect(!outcome.child.hasChanges) }
    }

    @Test func savesWithoutConflictsWorkAsBefore() throws {
        let (parent, id) = try savedAccount()
        let otherID = try parent.performAndWait {
            let other = NSEntityDescription.insertNewObject(forEntityName: "Account", into: parent)
            other.setValue("other", forKey: "name")
            try parent.save()
            return other.objectID
        }
        let child = child(of: parent)
        let mine = try child.performAndWait { try child.existingObject(with: id) }
        // The parent changes another object: no conflict for this one.
        parent.performAndWait { parent.object(with: otherID).setValue("changed", forKey: "name") }
        try child.performAndWait {
            mine.setValue("first", forKey: "name")
            try child.save()
            // The child's own pushed values are what it read next time.
            mine.setValue("second", forKey: "name")
            try child.save()
        }
        #expect(values(id, in: parent).name == "second")

        // A change the parent made and saved is no conflict once the child merged it...
        let merging = self.child(of: parent)
        merging.automaticallyMergesChangesFromParent = true
        let merged = try merging.performAndWait { try merging.existingObject(with: id) }
        try parent.performAndWait {
            parent.object(with: id).setValue("m1", forKey: "memo")
            try parent.save()
        }
        try merging.performAndWait {
            #expect(merged.value(forKey: "memo") as? String == "m1")
            merged.setValue(Int64(99), forKey: "balance")
            try merging.save()
        }
        // ...or once the child refreshed the object keeping its changes.
        let refreshing = self.child(of: parent)
        let refreshed = try refreshing.performAndWait { try refreshing.existingObject(with: id) }
        parent.performAndWait { parent.object(with: id).setValue("m2", forKey: "memo") }
        try refreshing.performAndWait {
            refreshed.setValue(Int64(7), forKey: "balance")
            refreshing.refresh(refreshed, mergeChanges: true)
            try refreshing.save()
        }
        #expect(values(id, in: parent) == Values(name: "second", balance: 7, memo: "m2"))
    }

    @Test func eachLevelOfAGrandchildChainChecksAgainstItsOwnParent() throws {
        let (root, id) = try savedAccount()
        let middle = child(of: root)
        let leaf = child(of: middle)
        let inMiddle = try middle.performAndWait { try middle.existingObject(with: id) }
        let inLeaf = try leaf.performAndWait { try leaf.existingObject(with: id) }
        middle.performAndWait { inMiddle.setValue("middle", forKey: "memo") }
        // The leaf read the account before the middle changed it.
        let error = leaf.performAndWait { () -> NSError? in
            inLeaf.setValue("leaf", forKey: "memo")
            do { try leaf.save(); return nil } catch { return error as NSError }
        }
        #expect(error?.code == NSManagedObjectMergeError)
        #expect(
            (error?.userInfo["conflictList"] as? [NSMergeConflict])?.first?.cachedSnapshot?["memo"] as? String
                == "middle")
        try leaf.performAndWait {
            leaf.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            try leaf.save()
        }
        #expect(values(id, in: middle).memo == "leaf")
        #expect(values(id, in: root).memo == "m0", "the root hears nothing until the middle saves")

        // The root changes the name after the middle read it: the middle's save conflicts.
        root.performAndWait { root.object(with: id).setValue("root", forKey: "name") }
        let middleError = middle.performAndWait { () -> NSError? in
            do { try middle.save(); return nil } catch { return error as NSError }
        }
        #expect(middleError?.code == NSManagedObjectMergeError)
        try middle.performAndWait {
            middle.mergePolicy = NSMergeByPropertyStoreTrumpMergePolicy
            try middle.save()
        }
        #expect(values(id, in: root) == Values(name: "root", balance: 10, memo: "leaf"))
        try root.performAndWait { try root.save() }
    }

    @Test(arguments: [0, 1, 2, 3, 4])
    func anUpdateOfAnObjectTheParentDeleted(policyIndex: Int) throws {
        let policy = [
            NSErrorMergePolicy, NSMergeByPropertyStoreTrumpMergePolicy, NSMergeByPropertyObjectTrumpMergePolicy,
            NSOverwriteMergePolicy, NSRollbackMergePolicy,
        ][policyIndex]
        let (parent, id) = try savedAccount()
        let child = child(of: parent, policy: policy)
        let mine = try child.performAndWait { try child.existingObject(with: id) }
        parent.performAndWait { parent.delete(parent.object(with: id)) }
        let error = child.performAndWait { () -> NSError? in
            mine.setValue("mine", forKey: "name")
            do { try child.save(); return nil } catch { return error as NSError }
        }
        if policyIndex == 0 {
            #expect(error?.code == NSManagedObjectMergeError)
            let conflict = (error?.userInfo["conflictList"] as? [NSMergeConflict])?.first
            #expect(conflict?.newVersionNumber == 0)
            #expect(conflict?.cachedSnapshot == nil && conflict?.persistedSnapshot == nil)
            child.performAndWait { #expect(!mine.isDeleted && child.hasChanges) }
        } else {
            #expect(error == nil, "\(policy)")
            child.performAndWait {
                #expect(mine.isDeleted && mine.managedObjectContext == nil, "the parent's delete stands")
                #expect(!child.hasChanges)
            }
        }
        try parent.performAndWait {
            #expect(parent.deletedObjects.count == 1, "the child's update brought nothing back")
            try parent.save()
        }
        #expect(
            try ConflictFixture.integer(
                try #require(parent.persistentStoreCoordinator?.persistentStores.first?.url),
                "SELECT COUNT(*) FROM ZACCOUNT") == 0)
    }

    @Test(arguments: [1, 2, 3, 4])
    func aDeleteOfAnObjectTheParentChanged(policyIndex: Int) throws {
        let policy = [
            NSErrorMergePolicy, NSMergeByPropertyStoreTrumpMergePolicy, NSMergeByPropertyObjectTrumpMergePolicy,
            NSOverwriteMergePolicy, NSRollbackMergePolicy,
        ][policyIndex]
        let survives = policyIndex == 1 || policyIndex == 4
        let (parent, id) = try savedAccount()
        let child = child(of: parent, policy: policy)
        let mine = try child.performAndWait { try child.existingObject(with: id) }
        parent.performAndWait { parent.object(with: id).setValue("theirs", forKey: "name") }
        try child.performAndWait {
            child.delete(mine)
            try child.save()
            #expect((mine.managedObjectContext === child) == survives)
            if survives { #expect(mine.value(forKey: "name") as? String == "theirs") }
        }
        parent.performAndWait {
            #expect(parent.object(with: id).isDeleted == !survives, "\(policy)")
        }
    }

    /// Ledgers `one` and `two`; the account in neither. The child moves the account to
    /// `one` while the parent moved it to `two`.
    @Test(arguments: [1, 4])
    func aResolvedToOneTakesItsInversesAlong(policyIndex: Int) throws {
        let policy = policyIndex == 1 ? NSMergeByPropertyStoreTrumpMergePolicy : NSRollbackMergePolicy
        let (parent, id) = try savedAccount()
        let (oneID, twoID) = try parent.performAndWait {
            let ledgers = ["one", "two"].map { title in
                let ledger = NSEntityDescription.insertNewObject(forEntityName: "Ledger", into: parent)
                ledger.setValue(title, forKey: "title")
                return ledger
            }
            try parent.save()
            return (ledgers[0].objectID, ledgers[1].objectID)
        }
        let child = child(of: parent, policy: policy)
        let (account, one, two) = try child.performAndWait {
            let objects = try [id, oneID, twoID].map { try child.existingObject(with: $0) }
            // Loaded, so the inverse must be kept right in memory.
            for ledger in objects.dropFirst() { _ = ledger.mutableSetValue(forKey: "accounts").count }
            return (objects[0], objects[1], objects[2])
        }
        parent.performAndWait { parent.object(with: id).setValue(parent.object(with: twoID), forKey: "ledger") }
        try child.performAndWait {
            account.setValue(one, forKey: "ledger")
            #expect(one.mutableSetValue(forKey: "accounts").contains(account))
            try child.save()
            #expect(account.value(forKey: "ledger") as? NSManagedObject === two, "the parent's value")
            #expect(!one.mutableSetValue(forKey: "accounts").contains(account))
            #expect(two.mutableSetValue(forKey: "accounts").contains(account))
            #expect(!child.hasChanges)
        }
        parent.performAndWait {
            #expect(parent.object(with: id).value(forKey: "ledger") as? NSManagedObject === parent.object(with: twoID))
            #expect(parent.object(with: oneID).mutableSetValue(forKey: "accounts").count == 0)
        }
    }

    @Test func valuesAPolicyMergedAreValidatedBeforeThePush() throws {
        let model = GuardedAccount.model()
        let parent = try makeContext(model)
        let id = try parent.performAndWait {
            let account = GuardedAccount(context: parent)
            account.name = "base"
            account.memo = "m0"
            try parent.save()
            return account.objectID
        }
        let child = child(of: parent, policy: NSMergeByPropertyObjectTrumpMergePolicy)
        let mine = try child.performAndWait { try #require(try child.existingObject(with: id) as? GuardedAccount) }
        parent.performAndWait { (parent.object(with: id) as? GuardedAccount)?.memo = "same" }
        let error = child.performAndWait { () -> NSError? in
            mine.name = "same"
            do { try child.save(); return nil } catch { return error as NSError }
        }
        #expect(error?.code == NSManagedObjectValidationError, "each side alone is valid; merged, name equals memo")
        parent.performAndWait {
            #expect((parent.object(with: id) as? GuardedAccount)?.name == "base")
        }
    }
}

/// An account whose name must differ from its memo: a rule no single change breaks in
/// the conflict tests, but a merge of two changes can.
final class GuardedAccount: NSManagedObject {
    @Managed var name: String?
    @Managed var memo: String?

    static func model() -> NSManagedObjectModel {
        let account = ModelBuilder.entity("GuardedAccount", className: String(reflecting: GuardedAccount.self))
        account.properties = [
            ModelBuilder.attribute("name", .stringAttributeType), ModelBuilder.attribute("memo", .stringAttributeType),
        ]
        return ModelBuilder.model(account)
    }

    override func validateForUpdate() throws {
        try super.validateForUpdate()
        if name != nil, name == memo {
            throw NSError(
                domain: NSCocoaErrorDomain, code: NSManagedObjectValidationError,
                userInfo: [NSLocalizedDescriptionKey: "name and memo must differ"])
        }
    }
}
