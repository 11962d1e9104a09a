/// Names a query generation: a fixed view of a coordinator's stores that pinned contexts
/// read, whatever is saved meanwhile. Pass one to
/// ``NSManagedObjectContext/setQueryGenerationFrom(_:)``.
///
/// Get ``current`` to pin a context to the data as of its next read, or a pinned
/// context's ``NSManagedObjectContext/queryGenerationToken`` to pin another context of the
/// same coordinator to the same generation. A token keeps its generation readable for as
/// long as it exists (for SQLite, a read transaction that holds older pages in the WAL
/// file), so let go of tokens you no longer need.
///
/// Tokens are equal, and hash alike, when they name the same generation: every token a
/// context gives between two moves of its generation, and the tokens of contexts sharing a
/// generation. ``current`` equals only itself. Immutable, so `copy()` returns the token.
public final class NSQueryGenerationToken: NSObject, NSCopying, Sendable {
    /// The token that pins a context to the latest data, taken at its next read.
    public static let current = NSQueryGenerationToken(generation: nil)

    /// The named generation; `nil` for ``current``.
    let generation: QueryGeneration?

    init(generation: QueryGeneration?) {
        self.generation = generation
        super.init()
    }

    /// The token itself: tokens never change.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Whether `object` is a token for the same generation.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSQueryGenerationToken else { return false }
        return other.generation === generation
    }

    /// Equal for tokens of the same generation.
    public override var hash: Int {
        generation.map { ObjectIdentifier($0).hashValue } ?? 0
    }

    /// `current`, or which generation the token names.
    public override var description: String {
        guard let generation else { return "<NSQueryGenerationToken: current>" }
        return
            "<NSQueryGenerationToken: generation \(String(UInt(bitPattern: ObjectIdentifier(generation)), radix: 16))>"
    }
}
