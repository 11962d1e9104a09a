// The benchmark's databases on one server: a template with the benchmark model's tables,
// and each contender's copy of it, made and dropped untimed through an administration
// connection.
import Foundation
import Logging
import OpenCoreData
import OpenCoreDataPostgreSQL
import PostgresNIO

/// Makes, copies and drops databases on the benchmark's server.
@MainActor
final class BenchmarkDatabases {
    /// The server's address without a database (`postgres://user@host:port`).
    let baseURL: String
    private let administration: PostgresConnection
    static let logger = Logger(label: "OpenCoreDataPostgreSQLBenchmarks")
    private static let template = "ocd_bench_template"

    /// Connects to the `postgres` database of the server at `baseURL`.
    init(baseURL: String) async throws {
        self.baseURL = baseURL
        administration = try await PostgresConnection.connect(
            configuration: try Self.configuration(for: try Self.url(baseURL, "postgres")), id: 0, logger: Self.logger)
    }

    /// The URL of database `name` on the server.
    func url(of name: String) throws -> URL { try Self.url(baseURL, name) }

    /// Creates the template: OpenCoreData's PostgreSQL store made for the benchmark model, closed again.
    func makeTemplate() async throws {
        try await drop(Self.template)
        try await administration.query(
            PostgresQuery(unsafeSQL: "CREATE DATABASE \(Self.template)"), logger: Self.logger)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BenchmarkModel.make())
        let store = try coordinator.addPersistentStore(
            ofType: NSPostgreSQLStoreType, configurationName: nil, at: try url(of: Self.template), options: nil)
        try coordinator.remove(store)
    }

    /// Database `name`, dropped if it was there and made again as a copy of `source` (the template by default).
    func recreate(_ name: String, from source: String? = nil) async throws {
        try await drop(name)
        let source = source ?? Self.template
        try await endSessions(in: source)
        try await administration.query(
            PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) TEMPLATE \(source)"), logger: Self.logger)
    }

    /// Drops database `name`, ending its sessions.
    func drop(_ name: String) async throws {
        try await administration.query(
            PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: Self.logger)
    }

    /// Updates the planner's statistics of database `name` and sets its pages in order, as a
    /// server does on its own a while after a bulk load, so every contender's queries get the same plans.
    func vacuumAnalyze(_ name: String) async throws {
        let connection = try await PostgresConnection.connect(
            configuration: try Self.configuration(for: try url(of: name)), id: 1, logger: Self.logger)
        try await connection.query("VACUUM ANALYZE", logger: Self.logger)
        try await connection.close()
    }

    /// Ends the sessions still connected to database `name` (a copy needs its source alone).
    private func endSessions(in name: String) async throws {
        try await administration.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(name) AND pid <> pg_backend_pid()",
            logger: Self.logger)
    }

    /// The server's `version()`, for the report.
    func serverVersion() async throws -> String {
        for try await version in try await administration.query("SELECT version()", logger: Self.logger)
            .decode(String.self)
        {
            return version.components(separatedBy: " on ").first ?? version
        }
        return "PostgreSQL"
    }

    /// Drops the template and closes the administration connection.
    func close() async {
        try? await drop(Self.template)
        try? await administration.close()
    }

    private static func url(_ baseURL: String, _ name: String) throws -> URL {
        guard let url = URL(string: "\(baseURL)/\(name)") else { throw BenchmarkError("bad server URL \(baseURL)") }
        return url
    }

    /// postgres-nio's configuration for a `postgres://user:password@host:port/database` URL, without TLS (loopback).
    static func configuration(for url: URL) throws -> PostgresConnection.Configuration {
        guard let host = url.host, !url.path.isEmpty else { throw BenchmarkError("not a database URL: \(url)") }
        return PostgresConnection.Configuration(
            host: host, port: url.port ?? 5432, username: url.user ?? "postgres", password: url.password,
            database: String(url.path.dropFirst()), tls: .disable)
    }
}
