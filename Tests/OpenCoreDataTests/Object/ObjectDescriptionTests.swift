import Foundation
import Testing
@testable import OpenCoreDataCore
import OpenCoreDataStoreTestSupport

/// An object's description, as Core Data prints it: class, address, entity, ID and the
/// values, or `<fault>` while they are not loaded.
@Suite struct ObjectDescriptionTests {
    @Test func namesTheClassAddressEntityIDAndValues() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        try context.performAndWait {
            let note = Note(context: context)
            note.text = "hello"
            note.pages = 3
            try context.save()
            let address = String(UInt(bitPattern: ObjectIdentifier(note)), radix: 16)
            let description = note.description
            #expect(
                description.hasPrefix(
                    "<Note: 0x\(address)> (entity: Note; id: \(note.objectID.uriRepresentation().absoluteString); data: {"
                ))
            #expect(description.contains("text = \"hello\";"))
            #expect(description.contains("pages = 3;"))
            context.refresh(note, mergeChanges: false)
            #expect(note.description.hasSuffix("data: <fault>)"))
        }
    }
}
