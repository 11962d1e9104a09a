import OpenCoreDataStoreTestSupport
import Testing

/// The store-level fetch suite on SQLite stores, as the PostgreSQL engine runs it too.
@Suite struct FetchBehaviourTests {
    @Test(arguments: FetchBehaviour.allCases)
    func onSQLite(_ behaviour: FetchBehaviour) throws {
        try behaviour.run(on: .sqlite)
    }
}
