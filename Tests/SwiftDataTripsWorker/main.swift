// One step of the three-process SwiftData migration run (TripsWorkload, SwiftDataTripsSupport)
// per process, on one store file:
//
//   openswiftdata-trips-worker create <store path>    schema 1.0.0: a new store with four trips
//   openswiftdata-trips-worker migrate <store path>   schema 2.0.0 and the plan: migrates, changes data
//   openswiftdata-trips-worker verify <store path>    schema 2.0.0 and the plan again: checks everything
//
// Prints what it did on standard output and exits 0; on failure, the error (every failed
// check, for verify) on standard error and exit code 1; a usage error is exit code 64.
import Foundation
import SwiftDataTripsSupport

let arguments = CommandLine.arguments
guard arguments.count == 3, ["create", "migrate", "verify"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: openswiftdata-trips-worker create|migrate|verify <store path>\n".utf8))
    exit(64)
}
let store = URL(fileURLWithPath: arguments[2])
do {
    let lines: [String]
    switch arguments[1] {
    case "create": lines = [try TripsWorkload.create(at: store)]
    case "migrate": lines = try TripsWorkload.migrateAndChange(at: store)
    default: lines = try TripsWorkload.verify(at: store)
    }
    print(lines.joined(separator: "\n"))
    exit(0)
} catch {
    FileHandle.standardError.write(Data("\(arguments[1]) failed: \(error)\n".utf8))
    exit(1)
}
