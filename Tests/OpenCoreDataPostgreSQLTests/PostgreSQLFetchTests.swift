import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL
import OpenCoreDataStoreTestSupport
import OpenCoreDataTestSupport
import Testing

/// Fetching on PostgreSQL: the store-level suite SQLite runs.
@Suite(
    .enabled(
        if: PostgreSQLTestServer.testsAreEnabled,
        "PostgreSQL server binaries not found (install postgresql, or set OPENCOREDATA_POSTGRES_URL)"))
struct PostgreSQLFetchTests {
    static let engine = StoreUnderTest(type: NSPostgreSQLStoreType) { _ in try PostgreSQLTestServer.makeDatabase() }

    @Test(arguments: FetchBehaviour.allCases)
    func onPostgreSQL(_ behaviour: FetchBehaviour) throws {
        try behaviour.run(on: Self.engine)
    }
}
