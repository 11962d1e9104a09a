import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL
import OpenCoreDataStoreTestSupport
import OpenCoreDataTestSupport
import Testing

/// Saving, relationships and merge policies on PostgreSQL: the store-level suite SQLite runs.
@Suite(
    .enabled(
        if: PostgreSQLTestServer.testsAreEnabled,
        "PostgreSQL server binaries not found (install postgresql, or set OPENCOREDATA_POSTGRES_URL)"))
struct PostgreSQLSaveTests {
    static let engine = StoreUnderTest(type: NSPostgreSQLStoreType) { _ in try PostgreSQLTestServer.makeDatabase() }

    @Test(arguments: SaveBehaviour.allCases)
    func onPostgreSQL(_ behaviour: SaveBehaviour) throws {
        try behaviour.run(on: Self.engine)
    }
}
