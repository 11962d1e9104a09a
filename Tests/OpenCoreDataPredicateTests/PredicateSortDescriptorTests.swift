import Testing
@testable import OpenCoreDataPredicate

@Suite struct PredicateSortDescriptorTests {
    let people: [[String: Any]] = [
        ["name": "bob", "age": 30], ["name": "Alice", "age": 25], ["name": "carol", "age": NSNull()],
        ["name": "Dave", "age": 30], ["name": "élodie", "age": 41],
    ]

    private func names(_ items: [[String: Any]]) -> [String] { items.compactMap { $0["name"] as? String } }

    @Test func basicProperties() {
        let descriptor = NSSortDescriptor(key: "name", ascending: true, selector: .localizedStandardCompare)
        #expect(descriptor.key == "name")
        #expect(descriptor.ascending)
        #expect(descriptor.selector == Selector("localizedStandardCompare:"))
        let reversed = descriptor.reversedSortDescriptor as? NSSortDescriptor
        #expect(reversed?.ascending == false)
        #expect(reversed?.selector == .localizedStandardCompare)
        #expect(NSSortDescriptor(key: "a", ascending: true).selector == .compare)
        #expect(
            NSSortDescriptor(key: "a", ascending: true)
                == NSSortDescriptor(key: "a", ascending: true, selector: "compare:"))
        #expect(NSSortDescriptor(key: "a", ascending: true) != NSSortDescriptor(key: "a", ascending: false))
        let selector: Selector = "caseInsensitiveCompare:"
        #expect(selector.description == "caseInsensitiveCompare:")
    }

    @Test func defaultCompareIsCaseSensitiveAndNilFirst() {
        let sorted = people.sorted(using: [NSSortDescriptor(key: "name", ascending: true)])
        #expect(names(sorted) == ["Alice", "Dave", "bob", "carol", "élodie"])
        let byAge = people.sorted(using: [NSSortDescriptor(key: "age", ascending: true)])
        #expect(names(byAge) == ["carol", "Alice", "bob", "Dave", "élodie"])
        let byAgeDescending = people.sorted(using: [NSSortDescriptor(key: "age", ascending: false)])
        #expect(names(byAgeDescending) == ["élodie", "bob", "Dave", "Alice", "carol"])
    }

    @Test func multipleDescriptors() {
        let sorted = people.sorted(using: [
            NSSortDescriptor(key: "age", ascending: false),
            NSSortDescriptor(key: "name", ascending: true, selector: .caseInsensitiveCompare),
        ])
        #expect(names(sorted) == ["élodie", "bob", "Dave", "Alice", "carol"])
    }

    @Test func caseInsensitiveAndLocalizedSelectors() {
        let insensitive = people.sorted(using: [
            NSSortDescriptor(key: "name", ascending: true, selector: .caseInsensitiveCompare)
        ])
        #expect(names(insensitive).prefix(4) == ["Alice", "bob", "carol", "Dave"])
        let localized = people.sorted(using: [
            NSSortDescriptor(key: "name", ascending: true, selector: .localizedCaseInsensitiveCompare)
        ])
        #expect(names(localized) == ["Alice", "bob", "carol", "Dave", "élodie"])
        let localizedSensitive = people.sorted(using: [
            NSSortDescriptor(key: "name", ascending: true, selector: .localizedCompare)
        ])
        #expect(names(localizedSensitive) == ["Alice", "bob", "carol", "Dave", "élodie"])
    }

    @Test func localizedStandardCompareOrdersNumbersNaturally() {
        let files = ["file10.txt", "File2.txt", "file1.txt", "file20.txt", "file3.txt"]
        let sorted = files.sorted(using: [
            NSSortDescriptor(key: nil, ascending: true, selector: .localizedStandardCompare)
        ])
        #expect(sorted == ["file1.txt", "File2.txt", "file3.txt", "file10.txt", "file20.txt"])
        let plain = files.sorted(using: [NSSortDescriptor(key: nil, ascending: true)])
        #expect(plain == ["File2.txt", "file1.txt", "file10.txt", "file20.txt", "file3.txt"])
    }

    @Test func comparatorDescriptors() {
        let byLength = NSSortDescriptor(key: "name", ascending: true) { lhs, rhs in
            let a = (lhs as? String)?.count ?? 0, b = (rhs as? String)?.count ?? 0
            return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        }
        #expect(byLength.selector == nil)
        #expect(names(people.sorted(using: [byLength])) == ["bob", "Dave", "Alice", "carol", "élodie"])
        let reversed = byLength.reversedSortDescriptor as? NSSortDescriptor
        #expect(reversed.map { names(people.sorted(using: [$0])).first } == "élodie")
    }

    @Test func compareToAndKeyValueCoding() {
        let department = makeDepartment()
        let descriptor = NSSortDescriptor(key: "salary", ascending: false)
        #expect(descriptor.compare(department.employees[0], to: department.employees[1]) == .orderedDescending)
        let sorted = department.employees.sorted(using: [descriptor])
        #expect(sorted.map(\.name) == ["Grace", "Ada", "Linus"])
        let byNickname = department.employees.sorted(using: [NSSortDescriptor(key: "nickname", ascending: true)])
        #expect(byNickname.last?.name == "Ada")
        let byDepartmentName = NSSortDescriptor(key: "department.name", ascending: true)
        #expect(byDepartmentName.compare(department.employees[0], to: department.employees[1]) == .orderedSame)
    }

    @Test func foundationCollectionHelpers() {
        let array = NSArray(array: [3, 1, 2])
        #expect(
            array.sortedArray(using: [NSSortDescriptor(key: nil, ascending: true)]).compactMap { $0 as? Int } == [
                1, 2, 3,
            ])
        #expect(array.filtered(using: NSPredicate(format: "SELF > 1")).count == 2)
        let mutable = NSMutableArray(array: [3, 1, 2])
        mutable.sort(using: [NSSortDescriptor(key: nil, ascending: false)])
        #expect(mutable.compactMap { $0 as? Int } == [3, 2, 1])
        mutable.filter(using: NSPredicate(format: "SELF != 2"))
        #expect(mutable.compactMap { $0 as? Int } == [3, 1])
        #expect(
            Set(
                NSSet(array: [1, 2, 3]).filtered(using: NSPredicate(format: "SELF >= 2")).compactMap { $0.base as? Int }
            ) == [2, 3])
        #expect(
            NSOrderedSet(array: [3, 1, 2]).filtered(using: NSPredicate(format: "SELF < 3")).array.compactMap {
                $0 as? Int
            } == [1, 2])
    }

    @Test func swiftCollectionHelpers() {
        #expect([5, 1, 4].filtered(using: NSPredicate(format: "SELF BETWEEN {2, 5}")) == [5, 4])
        let set: Set<Int> = [1, 2, 3]
        let filtered: Set<Int> = set.filtered(using: NSPredicate(format: "SELF != 2"))
        #expect(filtered == [1, 3])
        var numbers = [3, 1, 2]
        numbers.sort(using: [NSSortDescriptor(key: nil, ascending: true)])
        #expect(numbers == [1, 2, 3])
        let department = makeDepartment()
        #expect(
            department.employees.filtered(using: NSPredicate(format: "salary > 100")).map(\.name) == ["Ada", "Grace"])
    }
}
