import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif
#if canImport(UIKit) && OPENCOREDATA_COMPATIBILITY_TEST
import UIKit
#endif

#if !OPENCOREDATA_COMPATIBILITY_TEST || canImport(UIKit)
/// A plain-text document: its text is the file's UTF-8 contents.
final class NoteDocument: UIDocument {
    var text = ""

    override func contents(forType typeName: String) throws -> Any {
        Data(text.utf8)
    }

    override func load(fromContents contents: Any, ofType typeName: String?) throws {
        guard let data = contents as? Data else { throw CocoaError(.fileReadCorruptFile) }
        text = String(decoding: data, as: UTF8.self)
    }
}

/// `UIDocument`: a file's contents loaded into and saved from a document object.
final class UIDocumentConformanceTests: XCTestCase {
    @MainActor
    private func noteURL() throws -> URL {
        try temporaryDirectory().appendingPathComponent("Note.txt")
    }

    @MainActor
    func testSavingForCreatingWritesTheContents() async throws {
        let url = try noteURL()
        let document = NoteDocument(fileURL: url)
        XCTAssertEqual(document.documentState, .closed)
        document.text = "Emma"
        let saved = await document.save(to: url, for: .forCreating)
        XCTAssertTrue(saved)
        XCTAssertEqual(document.documentState, .normal)
        XCTAssertEqual(try Data(contentsOf: url), Data("Emma".utf8))
        let closed = await document.close()
        XCTAssertTrue(closed)
        XCTAssertEqual(document.documentState, .closed)
    }

    @MainActor
    func testOpeningLoadsTheContents() async throws {
        let url = try noteURL()
        try Data("Persuasion".utf8).write(to: url)
        let document = NoteDocument(fileURL: url)
        let opened = await document.open()
        XCTAssertTrue(opened)
        XCTAssertEqual(document.text, "Persuasion")
        XCTAssertEqual(document.documentState, .normal)
        XCTAssertFalse(document.hasUnsavedChanges)
        _ = await document.close()
    }

    @MainActor
    func testTheChangeCountTellsWhetherThereAreUnsavedChanges() async throws {
        let document = NoteDocument(fileURL: try noteURL())
        XCTAssertFalse(document.hasUnsavedChanges)
        document.updateChangeCount(.done)
        XCTAssertTrue(document.hasUnsavedChanges)
        document.updateChangeCount(.undone)
        XCTAssertFalse(document.hasUnsavedChanges)
        document.updateChangeCount(.done)
        document.updateChangeCount(.cleared)
        XCTAssertFalse(document.hasUnsavedChanges)
    }

    @MainActor
    func testClosingSavesUnsavedChanges() async throws {
        let url = try noteURL()
        let document = NoteDocument(fileURL: url)
        _ = await document.save(to: url, for: .forCreating)
        document.text = "Middlemarch"
        document.updateChangeCount(.done)
        let closed = await document.close()
        XCTAssertTrue(closed)
        XCTAssertEqual(try Data(contentsOf: url), Data("Middlemarch".utf8))

        let reopened = NoteDocument(fileURL: url)
        let opened = await reopened.open()
        XCTAssertTrue(opened)
        XCTAssertEqual(reopened.text, "Middlemarch")
        _ = await reopened.close()
    }

    @MainActor
    func testOpeningAMissingFileFails() async throws {
        let document = NoteDocument(fileURL: try noteURL())
        let opened = await document.open()
        XCTAssertFalse(opened)
        XCTAssertTrue(document.documentState.contains(.closed))
    }
}
#endif
