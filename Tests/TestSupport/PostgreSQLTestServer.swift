import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster for tests: `initdb` into a temporary folder, a server on a
/// free loopback port, stopped and removed when the test process exits.
///
/// Set `OPENCOREDATA_POSTGRES_URL` to use a running server instead (the tests create and drop
/// their own databases in it), or `OPENCOREDATA_POSTGRES_BIN` to the folder holding `initdb`
/// and `pg_ctl`. Without either and without the server binaries installed, ``shared`` is
/// `nil` and ``unavailableReason`` says why, in one line, so the tests skip.
public final class PostgreSQLTestServer: Sendable {
    /// The server every test of this process shares, started on first use.
    public static let shared: PostgreSQLTestServer? = {
        do { return try start() } catch {
            startFailure.withLock { $0 = "\(error)" }
            return nil
        }
    }()

    /// Why there is no server, when there is none.
    public static var unavailableReason: String {
        _ = shared
        return startFailure.withLock { $0 } ?? "a server is running"
    }

    private static let startFailure = Mutex<String?>(nil)
    /// An atomic counter, not a `Mutex`: Thread Sanitizer cannot see `Mutex`'s lock on Linux
    /// (it is in the uninstrumented standard library) and reports its users as races.
    private static let databaseNumbers = Atomic<Int>(0)

    /// The server's address without a database (`postgres://user@127.0.0.1:port`).
    public let baseURL: String
    private let dataFolder: URL?
    private let binaries: URL?
    private let runAsPostgresUser: Bool
    /// The server's command-line options (port, socket folder), for restarts.
    private let serverOptions: String

    private init(
        baseURL: String, dataFolder: URL?, binaries: URL?, runAsPostgresUser: Bool, serverOptions: String = ""
    ) {
        self.baseURL = baseURL
        self.dataFolder = dataFolder
        self.binaries = binaries
        self.runAsPostgresUser = runAsPostgresUser
        self.serverOptions = serverOptions
    }

    /// A cluster of its own, for a test that restarts its server (the shared one serves
    /// other tests meanwhile); ``stopAndRemove()`` it when done. Throws when there are no
    /// server binaries, or when the tests were pointed at a running server instead.
    public static func startPrivate() throws -> PostgreSQLTestServer {
        let environment = ProcessInfo.processInfo.environment
        guard environment["OPENCOREDATA_POSTGRES_URL"]?.isEmpty ?? true,
            let binaries = findBinaries(environment["OPENCOREDATA_POSTGRES_BIN"])
        else { throw Failure("No PostgreSQL server binaries to start a cluster of the test's own") }
        return try startCluster(binaries: binaries)
    }

    /// Restarts the server (a fast shutdown: every session ends), as an administrator would.
    public func restart() throws {
        guard let dataFolder, let binaries else { throw Failure("Not a cluster these tests started") }
        try Self.run(
            [
                binaries.appendingPathComponent("pg_ctl").path, "-D", dataFolder.appendingPathComponent("data").path,
                "-l", dataFolder.appendingPathComponent("server.log").path, "-m", "fast", "-w", "-o", serverOptions,
                "restart",
            ], asPostgresUser: runAsPostgresUser)
    }

    /// Stops the server and removes its folder.
    public func stopAndRemove() { stop() }

    /// The URL of a new empty database of this server, for one test.
    public func makeDatabase() throws -> URL {
        let number = Self.databaseNumbers.wrappingAdd(1, ordering: .relaxed).newValue
        let name = "ocd_\(getpid())_\(number)_\(UInt32.random(in: 0...UInt32.max))"
        try runPSQL("CREATE DATABASE \(name)")
        guard let url = URL(string: "\(baseURL)/\(name)") else { throw Failure("bad server URL \(baseURL)") }
        return url
    }

    /// Runs one SQL command in the `postgres` database with `psql`.
    public func runPSQL(_ sql: String) throws {
        let psql = binaries?.appendingPathComponent("psql").path ?? "psql"
        try Self.run(
            [psql, "-v", "ON_ERROR_STOP=1", "-q", "-d", "\(baseURL)/postgres", "-c", sql], asPostgresUser: false)
    }

    // MARK: Starting and stopping

    private static func start() throws -> PostgreSQLTestServer {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["OPENCOREDATA_POSTGRES_URL"], !url.isEmpty {
            return PostgreSQLTestServer(
                baseURL: url.hasSuffix("/") ? String(url.dropLast()) : url, dataFolder: nil, binaries: nil,
                runAsPostgresUser: false)
        }
        guard let binaries = findBinaries(environment["OPENCOREDATA_POSTGRES_BIN"]) else {
            throw Failure(
                "PostgreSQL's server binaries (initdb, pg_ctl) were not found: install the postgresql package or set OPENCOREDATA_POSTGRES_BIN or OPENCOREDATA_POSTGRES_URL"
            )
        }
        let server = try startCluster(binaries: binaries)
        // Registered while `shared` is being set to this server, so at exit it is that server.
        atexit { PostgreSQLTestServer.shared?.stop() }
        return server
    }

    /// initdb into a new temporary folder, then a server on a free loopback port.
    private static func startCluster(binaries: URL) throws -> PostgreSQLTestServer {
        // initdb refuses to run as root; CI runs as root, so the cluster belongs to the
        // `postgres` user the package creates.
        let asPostgres = geteuid() == 0
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "opencoredata-postgres-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if asPostgres { try run(["chown", "-R", "postgres:postgres", folder.path], asPostgresUser: false) }
        let data = folder.appendingPathComponent("data")
        try run(
            [
                binaries.appendingPathComponent("initdb").path, "-D", data.path, "-U", "postgres", "--auth=trust",
                "-E", "UTF8", "--no-locale", "--no-sync",
            ], asPostgresUser: asPostgres)
        let port = try freePort()
        let options = "-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        try run(
            [
                binaries.appendingPathComponent("pg_ctl").path, "-D", data.path, "-l",
                folder.appendingPathComponent("server.log").path, "-w", "-o", options, "start",
            ], asPostgresUser: asPostgres)
        return PostgreSQLTestServer(
            baseURL: "postgres://postgres@127.0.0.1:\(port)", dataFolder: folder, binaries: binaries,
            runAsPostgresUser: asPostgres, serverOptions: options)
    }

    /// Stops the server and removes its folder (at process exit).
    private func stop() {
        guard let dataFolder, let binaries else { return }
        try? Self.run(
            [
                binaries.appendingPathComponent("pg_ctl").path, "-D", dataFolder.appendingPathComponent("data").path,
                "-m", "immediate", "-w", "stop",
            ], asPostgresUser: runAsPostgresUser)
        try? FileManager.default.removeItem(at: dataFolder)
    }

    private static func findBinaries(_ configured: String?) -> URL? {
        var candidates: [String] = []
        if let configured, !configured.isEmpty { candidates.append(configured) }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        candidates += versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "/usr/lib/postgresql/\($0)/bin" }
        candidates += ["/usr/local/bin", "/usr/bin", "/opt/homebrew/bin", "/usr/local/pgsql/bin"]
        return candidates.map { URL(fileURLWithPath: $0) }.first {
            FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("initdb").path)
                && FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("pg_ctl").path)
        }
    }

    /// A loopback port nothing listens on now (the kernel's pick for port 0).
    private static func freePort() throws -> Int {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw Failure("no socket for picking a port") }
        defer { close(socketDescriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketDescriptor, $0, length) == 0 && getsockname(socketDescriptor, $0, &length) == 0
            }
        }
        guard bound else { throw Failure("could not pick a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a command (as the `postgres` user through `runuser` when asked), throwing its
    /// output when it fails.
    ///
    /// Spawned directly rather than with Foundation's `Process`: the server `pg_ctl` starts
    /// outlives it, and `Process` waits for every holder of the descriptors it hands the child.
    /// The child gets a log file for output and none of this process's other descriptors (the
    /// test runner's pipes among them), so a server left running holds nothing of ours.
    private static func run(_ arguments: [String], asPostgresUser: Bool) throws {
        let runuser =
            ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            } ?? "runuser"
        let command = asPostgresUser ? [runuser, "-u", "postgres", "--"] + arguments : arguments
        let log = FileManager.default.temporaryDirectory.appendingPathComponent(
            "opencoredata-pg-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        let argv = (["/usr/bin/env"] + command).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, "/usr/bin/env", &actions, nil, argv, environ)
        guard spawned == 0 else { throw Failure("could not start \(command[0]): error \(spawned)") }
        var status: Int32 = 0
        var waited = waitpid(child, &status, 0)
        while waited < 0 && errno == EINTR { waited = waitpid(child, &status, 0) }
        let exitedCleanly = waited == child && (status & 0x7f) == 0 && ((status >> 8) & 0xff) == 0
        guard exitedCleanly else {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw Failure(
                "\(command.joined(separator: " ")) failed: \(text.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

extension PostgreSQLTestServer {
    /// Whether PostgreSQL tests run: a server is there, or CI requires one
    /// (`OPENCOREDATA_REQUIRE_POSTGRES=1`), in which case they run and fail with the reason.
    public static var testsAreEnabled: Bool {
        shared != nil || ProcessInfo.processInfo.environment["OPENCOREDATA_REQUIRE_POSTGRES"] == "1"
    }

    /// A new empty database of the shared server, or an error saying why there is no server.
    public static func makeDatabase() throws -> URL {
        guard let shared else { throw Failure("No PostgreSQL server for the tests: \(unavailableReason)") }
        return try shared.makeDatabase()
    }
}
