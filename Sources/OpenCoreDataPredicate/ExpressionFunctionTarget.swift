/// An object that answers `FUNCTION(object, "selector:", arguments…)` expressions.
///
/// On Apple platforms `FUNCTION` sends the named Objective-C message to the object.
/// Swift on Linux cannot send a message by its selector name, so the object answers by
/// name instead: a migration manager answers Core Data's own functions
/// (`destinationInstancesForEntityMappingNamed:sourceInstances:`, …), and an
/// `NSEntityMigrationPolicy` subclass overrides
/// ``evaluateFunction(named:arguments:)`` for the custom functions its mapping model's
/// value expressions call. An OpenCoreData addition (see docs/DEVIATIONS.md).
public protocol ExpressionFunctionTarget: AnyObject {
    /// The result of the function `selector` (as written in the expression, colons
    /// included) for `arguments` (evaluated), or `nil` for a function it does not know.
    func evaluateFunction(named selector: String, arguments: [Any?]) -> Any?
}
