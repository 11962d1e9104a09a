import ExampleSupport
import Foundation
import OpenCoreData

/// Photomania's document: a `UIManagedDocument` whose model is the lecture's Photo and
/// Photographer (Photographer's photos nullify when it is deleted).
@MainActor
final class PhotomaniaDocument: UIManagedDocument {
    static let model: NSManagedObjectModel = {
        let photo = ModelKit.entity(
            "Photo", Photo.self,
            [
                ModelKit.attribute("title", .stringAttributeType),
                ModelKit.attribute("subtitle", .stringAttributeType),
                ModelKit.attribute("uploadDate", .dateAttributeType),
                ModelKit.attribute("thumbnailData", .binaryDataAttributeType, externalStorage: true),
                ModelKit.attribute("photoURL", .stringAttributeType),
                ModelKit.attribute("thumbnailURL", .stringAttributeType),
                ModelKit.attribute("uniqueId", .stringAttributeType, optional: false),
                ModelKit.attribute("lastViewedDate", .dateAttributeType),
            ])
        let photographer = ModelKit.entity(
            "Photographer", Photographer.self, [ModelKit.attribute("name", .stringAttributeType, optional: false)])
        ModelKit.relate(photographer, "photos", photo, inverse: "whoTook")
        return ModelKit.model(photo, photographer)
    }()

    override var managedObjectModel: NSManagedObjectModel { Self.model }

    /// What went wrong when opening or saving, for the user.
    private(set) var lastError: Error?

    override func handleError(_ error: Error, userInteractionPermitted: Bool) {
        lastError = error
        super.handleError(error, userInteractionPermitted: userInteractionPermitted)
    }

    /// The document in the app's data folder, opened, or created when it does not exist yet.
    static func openOrCreate(in folder: String?) async throws -> PhotomaniaDocument {
        let url = try ExampleData.directory(for: "Shutterbug", in: folder).appendingPathComponent(
            "Photomania.document", isDirectory: true)
        let document = PhotomaniaDocument(fileURL: url)
        let exists = FileManager.default.fileExists(atPath: url.path)
        let ready = exists ? await document.open() : await document.save(to: url, for: .forCreating)
        guard ready else {
            throw ExampleFailure(
                "cannot \(exists ? "open" : "create") the document \(url.path): \(document.lastError.map(ExampleFailure.sentence(for:)) ?? "unknown error")"
            )
        }
        return document
    }

    var context: NSManagedObjectContext { managedObjectContext }
}
