import FlyingFox
import Foundation

/// The server's HTTP API over a ``PeopleDirectory``.
enum PeopleRoutes {
    static func install(on server: HTTPServer, directory: PeopleDirectory, serverName: String) async {
        await server.appendRoute("GET /people") { _ in
            try json(await directory.people())
        }
        await server.appendRoute("POST /people") { request in
            let body = try await request.bodyData
            guard let person = try? JSONDecoder().decode(PeopleDirectory.Person.self, from: body),
                !person.name.trimmingCharacters(in: .whitespaces).isEmpty
            else {
                return HTTPResponse(
                    statusCode: .badRequest, body: Data("send JSON {\"name\": …, \"phone\": …} with a name\n".utf8))
            }
            do {
                return try json(["uri": try await directory.add(person)], status: .created)
            } catch {
                return HTTPResponse(
                    statusCode: .internalServerError, body: Data("could not save: \(error.localizedDescription)\n".utf8)
                )
            }
        }
        await server.appendRoute("GET /status") { _ in
            let status = await directory.status()
            return try json(
                Status(
                    server: serverName, people: status.people, remoteChanges: status.remoteChanges,
                    mergedTransactions: status.mergedTransactions))
        }
    }

    struct Status: Codable {
        var server: String
        var people: Int
        var remoteChanges: Int
        var mergedTransactions: Int
    }

    private static func json(_ value: some Encodable, status: HTTPStatusCode = .ok) throws -> HTTPResponse {
        HTTPResponse(
            statusCode: status, headers: [.contentType: "application/json"], body: try JSONEncoder().encode(value))
    }
}
