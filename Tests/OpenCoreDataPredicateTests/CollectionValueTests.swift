import Foundation
import Testing
import OpenCoreDataPredicate

/// `nil` in its disguises (`NSNull`, an `Optional` boxed in `Any`) becomes `nil`;
/// everything else, class instances included, comes back as it went in.
@Suite struct CollectionValueTests {
    @Test func nullsAndBoxedOptionalsBecomeNil() {
        #expect(CollectionValue.unwrapNull(NSNull()) == nil)
        #expect(CollectionValue.unwrapNull(nil) == nil)
        #expect(CollectionValue.unwrapNull(Optional<Int>.none as Any) == nil)
        #expect(CollectionValue.unwrapNull(Optional<NSObject>.none as Any) == nil)
    }

    @Test func valuesAndObjectsPassThrough() {
        #expect(CollectionValue.unwrapNull(Optional(5) as Any) as? Int == 5)
        #expect(CollectionValue.unwrapNull("Ada") as? String == "Ada")
        let object = NSObject()
        #expect(CollectionValue.unwrapNull(object) as? NSObject === object)
        #expect(CollectionValue.unwrapNull(Optional(object) as Any) as? NSObject === object)
        let set = NSSet(array: [1, 2])
        #expect(CollectionValue.unwrapNull(set) as? NSSet === set)
    }
}
