import Foundation
import OpenCoreData
import Testing

/// Fetching as a store of any engine must do it: windows and sorting, batched fetches and
/// faults, prefetching, partial objects, predicates over to-many relationships, dictionary
/// results with grouping, unsaved changes, and objects another coordinator deleted. Each
/// engine's test target runs every case on its stores (`@Test(arguments: FetchBehaviour.allCases)`).
public enum FetchBehaviour: String, CaseIterable, Sendable {
    case windowsAndSortingSelectTheRightObjects
    case batchedFetchesLoadObjectsAsTheyAreRead
    case prefetchingFillsRelationshipsInAdvance
    case predicatesFollowToManyRelationships
    case dictionaryResultsGroupAndAggregate
    case unsavedChangesCountWhenAsked
    case anObjectDeletedElsewhereCannotBeFulfilled

    /// Runs the case on stores of `engine`.
    public func run(on engine: StoreUnderTest) throws {
        let url = try engine.location("Fetch")
        let writer = try engine.context(url, model: Self.model(), options: nil)
        try Self.seed(writer)
        let suite = Suite(engine: engine, url: url, context: try engine.context(url, model: Self.model(), options: nil))
        switch self {
        case .windowsAndSortingSelectTheRightObjects: try suite.windowsAndSorting()
        case .batchedFetchesLoadObjectsAsTheyAreRead: try suite.batchedFetches()
        case .prefetchingFillsRelationshipsInAdvance: try suite.prefetching()
        case .predicatesFollowToManyRelationships: try suite.toManyPredicates()
        case .dictionaryResultsGroupAndAggregate: try suite.dictionaries()
        case .unsavedChangesCountWhenAsked: try suite.unsavedChanges()
        case .anObjectDeletedElsewhereCannotBeFulfilled: try suite.deletedElsewhere(writer: writer)
        }
    }

    /// City (name) ⟷ Store (name, revenue, open), one-to-many; Store ⟷ Product (title,
    /// price), many-to-many.
    public static func model() -> NSManagedObjectModel {
        let city = ModelBuilder.entity("City", className: "NSManagedObject")
        let store = ModelBuilder.entity("Store", className: "NSManagedObject")
        let product = ModelBuilder.entity("Product", className: "NSManagedObject")
        let (stores, storeCity) = ModelBuilder.pair(
            "stores", from: city, toMany: true, "city", to: store, toMany: false)
        let (products, productStores) = ModelBuilder.pair(
            "products", from: store, toMany: true, "stores", to: product, toMany: true)
        city.properties = [ModelBuilder.attribute("name", .stringAttributeType), stores]
        store.properties = [
            ModelBuilder.attribute("name", .stringAttributeType),
            ModelBuilder.attribute("revenue", .integer64AttributeType),
            ModelBuilder.attribute("open", .booleanAttributeType), storeCity, products,
        ]
        product.properties = [
            ModelBuilder.attribute("title", .stringAttributeType),
            ModelBuilder.attribute("price", .doubleAttributeType),
            productStores,
        ]
        return ModelBuilder.model(city, store, product)
    }

    /// Lyon (3 stores), Nantes (1 store), Brest (none); 20 stores in all named s00…s19
    /// with revenue 100·i, open when i is even; products p0…p4, store i selling products
    /// i mod 5 and (i + 1) mod 5, except the 16 stores without a city.
    static func seed(_ context: NSManagedObjectContext) throws {
        try context.performAndWait {
            let cities = ["Lyon", "Nantes", "Brest"].map { name -> NSManagedObject in
                let city = NSEntityDescription.insertNewObject(forEntityName: "City", into: context)
                city.setValue(name, forKey: "name")
                return city
            }
            let products = (0..<5).map { index -> NSManagedObject in
                let product = NSEntityDescription.insertNewObject(forEntityName: "Product", into: context)
                product.setValue("p\(index)", forKey: "title")
                product.setValue(Double(index) + 0.5, forKey: "price")
                return product
            }
            for index in 0..<20 {
                let store = NSEntityDescription.insertNewObject(forEntityName: "Store", into: context)
                store.setValue(String(format: "s%02d", index), forKey: "name")
                store.setValue(Int64(index * 100), forKey: "revenue")
                store.setValue(index % 2 == 0, forKey: "open")
                if index < 3 { store.setValue(cities[0], forKey: "city") }
                if index == 3 { store.setValue(cities[1], forKey: "city") }
                if index >= 4 {
                    store.setValue(Set([products[index % 5], products[(index + 1) % 5]]), forKey: "products")
                }
            }
            try context.save()
        }
    }
}

extension FetchBehaviour {
    private struct Suite {
        let engine: StoreUnderTest
        let url: URL
        let context: NSManagedObjectContext

        func names(_ objects: [NSManagedObject], _ key: String = "name") -> [String] {
            objects.compactMap { $0.value(forKey: key) as? String }
        }

        func windowsAndSorting() throws {
            try context.performAndWait { () throws in
                let request = NSFetchRequest<NSManagedObject>(entityName: "Store")
                request.predicate = NSPredicate(format: "open == YES")
                request.sortDescriptors = [NSSortDescriptor(key: "revenue", ascending: false)]
                request.fetchOffset = 2
                request.fetchLimit = 3
                #expect(names(try context.fetch(request)) == ["s14", "s12", "s10"])
                request.fetchLimit = 0
                #expect(try context.fetch(request).count == 8)
                request.fetchOffset = 0
                #expect(try context.count(for: request) == 10)
                let byCity = NSFetchRequest<NSManagedObject>(entityName: "Store")
                byCity.predicate = NSPredicate(format: "city != nil")
                byCity.sortDescriptors = [
                    NSSortDescriptor(key: "city.name", ascending: false),
                    NSSortDescriptor(key: "name", ascending: true),
                ]
                #expect(names(try context.fetch(byCity)) == ["s03", "s00", "s01", "s02"])
            }
        }

        func batchedFetches() throws {
            try context.performAndWait { () throws in
                let request = NSFetchRequest<NSManagedObject>(entityName: "Store")
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                request.fetchBatchSize = 4
                let stores = try context.fetch(request)
                #expect(stores.count == 20)
                #expect(stores[17].value(forKey: "name") as? String == "s17")
                #expect(stores[2].value(forKey: "revenue") as? Int64 == 200)
                #expect(names(Array(stores)) == (0..<20).map { String(format: "s%02d", $0) })
                let partial = NSFetchRequest<NSManagedObject>(entityName: "Store")
                partial.predicate = NSPredicate(format: "name == %@", "s05")
                partial.propertiesToFetch = ["name"]
                partial.returnsObjectsAsFaults = false
                let store = try #require(try context.fetch(partial).first)
                #expect(store.value(forKey: "name") as? String == "s05")
                #expect(store.value(forKey: "revenue") as? Int64 == 500, "the rest is read when asked")
            }
        }

        func prefetching() throws {
            try context.performAndWait { () throws in
                let request = NSFetchRequest<NSManagedObject>(entityName: "City")
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                request.relationshipKeyPathsForPrefetching = ["stores", "stores.products"]
                let cities = try context.fetch(request)
                #expect(names(cities) == ["Brest", "Lyon", "Nantes"])
                let counts = cities.map { ($0.value(forKey: "stores") as? Set<NSManagedObject>)?.count }
                #expect(counts == [0, 3, 1])
                let lyonStores = try #require(cities[1].value(forKey: "stores") as? Set<NSManagedObject>)
                #expect(Set(names(Array(lyonStores))) == ["s00", "s01", "s02"])
                let products = NSFetchRequest<NSManagedObject>(entityName: "Store")
                products.predicate = NSPredicate(format: "name == %@", "s07")
                products.relationshipKeyPathsForPrefetching = ["products"]
                let s07 = try #require(try context.fetch(products).first)
                let titles = (s07.value(forKey: "products") as? Set<NSManagedObject>).map { names(Array($0), "title") }
                #expect(Set(titles ?? []) == ["p2", "p3"])
            }
        }

        func toManyPredicates() throws {
            try context.performAndWait { () throws in
                func cities(_ format: String, _ arguments: Any...) throws -> [String] {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "City")
                    request.predicate = NSPredicate(format: format, argumentArray: arguments)
                    request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                    return names(try context.fetch(request))
                }
                #expect(try cities("stores.@count > 1") == ["Lyon"])
                #expect(try cities("stores.@count == 0") == ["Brest"])
                #expect(try cities("ANY stores.revenue >= %d", 300) == ["Nantes"])
                // ALL holds for a city without stores.
                #expect(try cities("ALL stores.open == YES") == ["Brest"])
                #expect(try cities("NONE stores.open == YES") == ["Brest", "Nantes"])
                #expect(try cities("SUBQUERY(stores, $s, $s.revenue < 150).@count == 2") == ["Lyon"])
                #expect(try cities("stores.@sum.revenue == 300") == ["Lyon", "Nantes"])
                let products = NSFetchRequest<NSManagedObject>(entityName: "Product")
                products.predicate = NSPredicate(format: "ANY stores.name == %@", "s04")
                products.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
                #expect(names(try context.fetch(products), "title") == ["p0", "p4"])
            }
        }

        func dictionaries() throws {
            try context.performAndWait { () throws in
                let total = NSExpressionDescription()
                total.name = "total"
                total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "revenue")])
                total.expressionResultType = .integer64AttributeType
                let count = NSExpressionDescription()
                count.name = "count"
                count.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "name")])
                count.expressionResultType = .integer64AttributeType
                let request = NSFetchRequest<NSDictionary>(entityName: "Store")
                request.resultType = .dictionaryResultType
                request.propertiesToFetch = ["open", total, count]
                request.propertiesToGroupBy = ["open"]
                request.sortDescriptors = [NSSortDescriptor(key: "open", ascending: true)]
                let rows = try context.fetch(request)
                #expect(rows.count == 2)
                #expect(rows.map { ($0["open"] as? NSNumber)?.boolValue } == [false, true])
                #expect(rows.map { ($0["total"] as? NSNumber)?.int64Value } == [10_000, 9_000])
                #expect(rows.map { ($0["count"] as? NSNumber)?.intValue } == [10, 10])
                let distinct = NSFetchRequest<NSDictionary>(entityName: "Store")
                distinct.resultType = .dictionaryResultType
                distinct.propertiesToFetch = ["city.name"]
                distinct.returnsDistinctResults = true
                distinct.predicate = NSPredicate(format: "city != nil")
                let cityNames = Set(try context.fetch(distinct).compactMap { $0["city.name"] as? String })
                #expect(cityNames == ["Lyon", "Nantes"])
            }
        }

        func unsavedChanges() throws {
            try context.performAndWait { () throws in
                let fresh = NSEntityDescription.insertNewObject(forEntityName: "Store", into: context)
                fresh.setValue("s99", forKey: "name")
                fresh.setValue(Int64(99_999), forKey: "revenue")
                let s00 = try #require(try context.fetchAll("Store", sortedBy: "name").first)
                s00.setValue(Int64(50_000), forKey: "revenue")
                let rich = NSFetchRequest<NSManagedObject>(entityName: "Store")
                rich.predicate = NSPredicate(format: "revenue > %d", 10_000)
                rich.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                #expect(names(try context.fetch(rich)) == ["s00", "s99"])
                #expect(try context.count(for: rich) == 2)
                rich.includesPendingChanges = false
                #expect(try context.fetch(rich).isEmpty)
                context.rollback()
            }
        }

        func deletedElsewhere(writer: NSManagedObjectContext) throws {
            let id = try context.performAndWait { () throws -> NSManagedObjectID in
                let brest = try #require(try context.fetchAll("City", sortedBy: "name").first)
                return brest.objectID
            }
            context.performAndWait { context.reset() }
            try writer.performAndWait {
                let brest = try #require(try writer.fetchAll("City", sortedBy: "name").first)
                writer.delete(brest)
                try writer.save()
            }
            try context.performAndWait { () throws in
                let error = try #require(throws: NSError.self) { try context.existingObject(with: id) }
                #expect(error.code == NSManagedObjectReferentialIntegrityError)
                #expect(try context.fetchAll("City", sortedBy: "name").count == 2)
            }
        }
    }
}
