import Foundation
import OpenCoreData
import OpenCoreDataTestSupport
import Testing

@testable import OpenCoreDataPostgreSQL

/// A PostgreSQL store's URL and options: checked when the store is added, applied to every
/// connection it opens.
@Suite struct PostgreSQLConnectionSettingsTests {
    private let url = URL(string: "postgres://app:secret@db.example:5433/inventory")!

    @Test func theStoreTypeIsNamedAsTheIssuePinsIt() {
        #expect(NSPostgreSQLStoreType == "PostgreSQL")
        #expect(NSPersistentStore.StoreType.postgreSQL.rawValue == NSPostgreSQLStoreType)
    }

    @Test func defaultsAreTwoConnectionsThePublicSchemaAndNoTimeout() throws {
        let settings = try PostgreSQLConnectionSettings(url: url, options: nil)
        #expect(settings.poolSize == 2)
        #expect(settings.schema == "public")
        #expect(settings.statementTimeout == nil)
        #expect(settings.connectionString == url.absoluteString)
        #expect(settings.sessionStatements == ["SET search_path TO \"public\""])
        #expect(settings.displayURL == "postgres://app:***@db.example:5433/inventory", "no password in messages")
    }

    @Test func optionsBecomeTheConnectionStringAndSessionSettings() throws {
        let settings = try PostgreSQLConnectionSettings(
            url: URL(string: "postgresql://app@db.example/inventory?sslmode=disable&application_name=api")!,
            options: [
                NSPostgreSQLConnectionPoolSizeOption: 4, NSPostgreSQLSchemaNameOption: "Shop \"A\"",
                NSPostgreSQLStatementTimeoutOption: 2.5, NSPostgreSQLTLSModeOption: "require",
            ])
        #expect(settings.poolSize == 4)
        #expect(
            settings.connectionString == "postgresql://app@db.example/inventory?application_name=api&sslmode=require")
        #expect(
            settings.sessionStatements == ["SET search_path TO \"Shop \"\"A\"\"\"", "SET statement_timeout = 2500"])
    }

    @Test(arguments: [
        (NSPostgreSQLConnectionPoolSizeOption, 0 as any Sendable),
        (NSPostgreSQLConnectionPoolSizeOption, "4" as any Sendable),
        (NSPostgreSQLSchemaNameOption, "" as any Sendable),
        (NSPostgreSQLStatementTimeoutOption, -1.0 as any Sendable),
        (NSPostgreSQLStatementTimeoutOption, Double.infinity as any Sendable),
        (NSPostgreSQLStatementTimeoutOption, 1e17 as any Sendable),
        (NSPostgreSQLStatementTimeoutOption, "30" as any Sendable),
        (NSPostgreSQLTLSModeOption, "always" as any Sendable),
    ])
    func aBadOptionIsRefusedByName(key: String, value: any Sendable) {
        let error = #expect(throws: NSError.self) {
            try PostgreSQLConnectionSettings(url: url, options: [key: value])
        }
        #expect(error?.code == NSPersistentStoreInvalidTypeError)
        #expect(error?.localizedDescription.contains(key) == true, "\(error?.localizedDescription ?? "")")
    }

    @Test func aWholeNumberOfSecondsIsATimeout() throws {
        let settings = try PostgreSQLConnectionSettings(url: url, options: [NSPostgreSQLStatementTimeoutOption: 30])
        #expect(settings.statementTimeout == 30)
    }

    @Test func aPasswordParameterIsKeptOutOfMessages() throws {
        let settings = try PostgreSQLConnectionSettings(
            url: URL(string: "postgres://app@db.example/inventory?password=secret")!, options: nil)
        #expect(!settings.displayURL.contains("secret"))
        #expect(settings.connectionString.contains("password=secret"), "libpq still gets it")
    }

    @Test func aURLThatIsNotPostgreSQLsIsRefusedWithoutItsPassword() {
        let error = #expect(throws: NSError.self) {
            try PostgreSQLConnectionSettings(url: URL(string: "mysql://app:secret@db/inventory")!, options: nil)
        }
        #expect(error?.code == NSPersistentStoreInvalidTypeError)
        #expect(error?.localizedDescription.contains("secret") == false)
        #expect(error?.localizedDescription.contains("postgres://") == true)
    }

    /// libpq reads anything but `postgres://…` as `key=value` pairs and quotes it back in its
    /// error: such a URL is refused before libpq sees it, and without its password.
    @Test(arguments: ["postgres:/app:secret@db/inventory", "postgresql:app:secret@db/inventory"])
    func aPostgreSQLURLWithoutItsSlashesIsRefusedWithoutItsPassword(_ text: String) throws {
        let error = #expect(throws: NSError.self) {
            try PostgreSQLConnectionSettings(url: try #require(URL(string: text)), options: nil)
        }
        #expect(error?.code == NSPersistentStoreInvalidTypeError)
        #expect(error?.localizedDescription.contains("secret") == false)
        #expect(error?.localizedDescription.contains("without //") == true, "\(String(describing: error))")
    }

    @Test func theSchemeReachesLibpqInLowerCase() throws {
        let settings = try PostgreSQLConnectionSettings(
            url: try #require(URL(string: "PostgreSQL://app@db.example/inventory")), options: nil)
        #expect(settings.connectionString.hasPrefix("postgresql://app@db.example/inventory"))
    }

    @Test(
        .enabled(
            if: PostgreSQLTestServer.testsAreEnabled,
            "PostgreSQL server binaries not found (install postgresql, or set OPENCOREDATA_POSTGRES_URL)"))
    func aConnectionUsesTheSchemaAndTheStatementTimeout() throws {
        let database = try PostgreSQLTestServer.makeDatabase()
        try PostgreSQLConnection(url: database).execute("CREATE SCHEMA \"Shop\"")
        let settings = try PostgreSQLConnectionSettings(
            url: database, options: [NSPostgreSQLSchemaNameOption: "Shop", NSPostgreSQLStatementTimeoutOption: 0.2])
        let connection = try PostgreSQLConnection(settings: settings)
        #expect(try connection.execute("SELECT current_schema()").text(0, 0) == "Shop")
        let cancelled = #expect(throws: PostgreSQLError.self) { try connection.execute("SELECT pg_sleep(5)") }
        #expect(cancelled?.sqlState == "57014", "the server cancelled the statement: \(String(describing: cancelled))")

        // A new session after a lost connection gets the same settings.
        try PostgreSQLConnection(url: database).execute(
            "SELECT pg_terminate_backend($1::integer, 5000)", [.integer(Int64(connection.serverProcessID))])
        #expect(throws: PostgreSQLError.self) { try connection.execute("SELECT 1") }
        try connection.reconnect()
        #expect(try connection.execute("SELECT current_schema()").text(0, 0) == "Shop")
        #expect(try connection.execute("SHOW statement_timeout").text(0, 0) == "200ms")
    }
}
