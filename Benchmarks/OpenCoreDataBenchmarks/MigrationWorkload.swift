// The `migrate` workload: lightweight migration of an N-row store, against the same
// change written by hand in SQL.
import OpenCoreData

enum MigrationWorkload {
    /// Version 1: Item with six attributes (`number` indexed). Version 2 renames `name`
    /// to `title` (renaming identifier) and adds a required `rating` with default 0.
    /// (Also the `browse` workload's model.)
    static let version1 = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="1">
            <entity name="Item" representedClassName="Item" syncable="YES">
                <attribute name="amount" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="created" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="flag" attributeType="Boolean" usesScalarValueType="YES"/>
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="note" optional="YES" attributeType="String"/>
                <attribute name="number" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES" indexed="YES"/>
            </entity>
        </model>
        """
    private static let version2 = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="2">
            <entity name="Item" representedClassName="Item" syncable="YES">
                <attribute name="amount" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="created" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="flag" attributeType="Boolean" usesScalarValueType="YES"/>
                <attribute name="note" optional="YES" attributeType="String"/>
                <attribute name="number" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES" indexed="YES"/>
                <attribute name="rating" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="title" optional="YES" attributeType="String" elementID="name"/>
            </entity>
        </model>
        """

    /// The same change by hand: a copy with the new column and the renamed one, then the
    /// swap and the index, in one transaction.
    private static let handWritten = """
        BEGIN;
        CREATE TABLE ZITEM_NEW AS SELECT Z_PK, Z_ENT, Z_OPT, ZFLAG, ZNUMBER, 0 AS ZRATING, ZAMOUNT, ZCREATED, ZNOTE, ZNAME AS ZTITLE FROM ZITEM;
        DROP TABLE ZITEM;
        ALTER TABLE ZITEM_NEW RENAME TO ZITEM;
        CREATE INDEX ZITEM_ZNUMBER_INDEX ON ZITEM (ZNUMBER);
        COMMIT;
        """

    static func run(sizes: [Int]) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "OpenCoreDataBenchmarks-migrate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let bundle = root.appendingPathComponent("Shop.xcdatamodeld")
        for (name, contents) in [("Shop", version1), ("Shop 2", version2)] {
            let folder = bundle.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        }
        print(
            "\n### migrate: lightweight migration (add a required attribute with a default, rename one) against the same change in hand-written SQL\n"
        )
        var rows = [["N", "OpenCoreData", "hand-written SQL", "ratio", "peak MiB (ours)", "target"]]
        for size in sizes {
            let template = root.appendingPathComponent("template-\(size).sqlite")
            try makeVersion1Store(at: template, bundle: bundle, rows: size)
            var ours = Double.infinity, hand = Double.infinity
            var peak: Int?
            for run in 0..<Harness.repetitions(for: size) {
                let mine = root.appendingPathComponent("ours-\(run).sqlite")
                try StoreFiles.copy(template, to: mine)
                let baseline = MemoryMeter.startRun()
                let clock = ContinuousClock()
                let start = clock.now
                let coordinator = try migrate(mine, bundle: bundle)
                ours = min(ours, seconds(clock.now - start))
                if let baseline { peak = max(peak ?? 0, MemoryMeter.peak() - baseline) }
                try coordinator.persistentStores.forEach { try coordinator.remove($0) }
                StoreFiles.remove(mine)

                let theirs = root.appendingPathComponent("hand-\(run).sqlite")
                try StoreFiles.copy(template, to: theirs)
                let connection = try RawConnection(path: theirs.path)
                hand = min(hand, seconds(try clock.measure { try connection.execute(handWritten) }))
                connection.close()
                StoreFiles.remove(theirs)
            }
            StoreFiles.remove(template)
            let met = ours <= 2 * hand && (peak.map { $0 <= 64 << 20 } ?? false)
            rows.append([
                Report.count(size), Report.time(ours), Report.time(hand), String(format: "%.2f×", ours / hand),
                Report.mebibytes(peak),
                "≤ 2× hand SQL, ≤ 64 MiB: \(met ? "met" : "missed")",
            ])
        }
        print(Report.table(rows))
    }

    /// A version 1 store made by OpenCoreData, filled with `rows` items in SQL.
    private static func makeVersion1Store(at url: URL, bundle: URL, rows: Int) throws {
        let model = try NSManagedObjectModel.load(contentsOf: bundle.appendingPathComponent("Shop.xcdatamodel"))
        try StoreFiles.fillInSQL(url, model: model, entity: "Item", rows: rows) { entity in
            """
            INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZAMOUNT, ZCREATED, ZFLAG, ZNAME, ZNOTE, ZNUMBER)
            SELECT i, \(entity), 1, i * 0.5, 700000000 + i, i % 2, 'item ' || i, 'note for item ' || i, i FROM n
            """
        }
    }

    /// Opens the store with version 2, which migrates it; returns the coordinator holding it open.
    private static func migrate(_ url: URL, bundle: URL) throws -> NSPersistentStoreCoordinator {
        let model = try NSManagedObjectModel.load(contentsOf: bundle.appendingPathComponent("Shop 2.xcdatamodel"))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        guard model.isConfiguration(withName: nil, compatibleWithStoreMetadata: store.metadata ?? [:]) else {
            throw BenchmarkError("the store did not migrate")
        }
        return coordinator
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
