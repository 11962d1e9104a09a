import GRDB
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import OpenCoreDataStoreTestSupport
import OpenCoreDataTestSupport

// Models shared by the context, store and validation tests.

final class Notebook: NSManagedObject {
    @Managed var name: String?
    @Managed var creationDate: Date?
    @Managed var notes: NSSet?
}

final class Note: NSManagedObject {
    @Managed var text: String?
    @Managed var pages: Int16
    @Managed var notebook: Notebook?
    @Managed var tags: Set<Tag>?
}

final class Tag: NSManagedObject {
    @Managed var title: String?
    @Managed var notes: Set<Note>?
}

final class Playlist: NSManagedObject {
    @Managed var title: String?
    @Managed var songs: NSOrderedSet?
}

final class Song: NSManagedObject {
    @Managed var title: String?
    @Managed var playlist: Playlist?
}

/// A tiny builder so each test's model reads like the model editor.
extension ModelBuilder {
    /// One `Photo` entity (plain `NSManagedObject`s) whose binary attribute `attribute`
    /// allows external storage.
    static func photoModel(attribute name: String = "imageData") -> NSManagedObjectModel {
        let photo = entity("Photo", className: "NSManagedObject")
        let image = attribute(name, .binaryDataAttributeType)
        image.allowsExternalBinaryDataStorage = true
        photo.properties = [image]
        let model = NSManagedObjectModel()
        model.entities = [photo]
        return model
    }

    /// Notebook ↔ Note (cascade from notebook), Note ↔ Tag (many-to-many),
    /// Playlist ↔ Song (ordered), with required/min/max rules for validation tests.
    static func notesModel(notebookRule: NSDeleteRule = .cascadeDeleteRule) -> NSManagedObjectModel {
        let notebook = entity("Notebook")
        let note = entity("Note")
        let tag = entity("Tag")
        let playlist = entity("Playlist")
        let song = entity("Song")
        let (notes, noteNotebook) = pair(
            "notes", from: notebook, toMany: true, rule: notebookRule, "notebook", to: note, toMany: false)
        let (noteTags, tagNotes) = pair("tags", from: note, toMany: true, "notes", to: tag, toMany: true)
        let (songs, songPlaylist) = pair(
            "songs", from: playlist, toMany: true, "playlist", to: song, toMany: false, ordered: true)
        let name = attribute("name", .stringAttributeType, optional: false)
        name.setValidationPredicates(
            [NSPredicate(format: "length >= 1"), NSPredicate(format: "length <= 20")],
            withValidationWarnings: ["name too short", "name too long"])
        let pages = attribute("pages", .integer16AttributeType, defaultValue: 1)
        pages.setValidationPredicates(
            [NSPredicate(format: "SELF >= 0"), NSPredicate(format: "SELF <= 500")],
            withValidationWarnings: ["negative pages", "too many pages"])
        notebook.properties = [name, attribute("creationDate", .dateAttributeType), notes]
        note.properties = [attribute("text", .stringAttributeType), pages, noteNotebook, noteTags]
        tag.properties = [attribute("title", .stringAttributeType), tagNotes]
        playlist.properties = [attribute("title", .stringAttributeType), songs]
        song.properties = [attribute("title", .stringAttributeType), songPlaylist]
        let model = NSManagedObjectModel()
        model.entities = [notebook, note, tag, playlist, song]
        return model
    }
}

/// A fresh private-queue context on a new SQLite (or in-memory) store, added with `options`.
func makeContext(
    _ model: NSManagedObjectModel, url: URL? = temporaryStoreURL(), type: String = NSSQLiteStoreType,
    options: [AnyHashable: Any]? = nil
) throws -> NSManagedObjectContext {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: options)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
}

/// A context on a new SQLite store holding `count` saved notes ("note 0", "note 1", …), reset.
func seededNotes(_ count: Int) throws -> NSManagedObjectContext {
    let context = try makeContext(ModelBuilder.notesModel())
    try context.performAndWait {
        for index in 0..<count { Note(context: context).text = "note \(index)" }
        try context.save()
        context.reset()
    }
    return context
}

/// Removes every store of `context`'s coordinator, closing their files.
func closeStores(of context: NSManagedObjectContext) throws {
    guard let coordinator = context.persistentStoreCoordinator else { return }
    for store in coordinator.persistentStores { try coordinator.remove(store) }
}

/// A store file in a folder of its own (not yet made) in ``testFilesFolder``.
func temporaryStoreURL(_ name: String = "Test") -> URL {
    testFilesFolder
        .appendingPathComponent("OpenCoreDataTests-\(UUID().uuidString)")
        .appendingPathComponent("\(name).sqlite")
}

/// A container with one SQLite store at `url`, its stores loaded (or the load error thrown).
func openContainer(at url: URL, model: NSManagedObjectModel) throws -> NSPersistentContainer {
    let container = NSPersistentContainer(name: "Family", managedObjectModel: model)
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
    var loadError: Error?
    container.loadPersistentStores { _, error in loadError = error }
    if let loadError { throw loadError }
    return container
}

/// Whether `condition` holds within 20 seconds, checked every 5 ms (for tests of work on
/// other threads).
func waitUntil(_ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: 20)
    while !condition() {
        if Date() > deadline { return false }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return true
}

/// Another private-queue context on `context`'s coordinator (sharing its store and row cache).
func siblingContext(of context: NSManagedObjectContext) -> NSManagedObjectContext {
    let sibling = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    sibling.persistentStoreCoordinator = context.persistentStoreCoordinator
    return sibling
}

/// Records the SQL statements the first store of a context's coordinator runs, from
/// creation until it is released (per store, so parallel tests don't interfere).
final class SQLRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []
    private let log: SQLStatementLog
    private var token = 0

    init(_ context: NSManagedObjectContext) {
        let store = context.persistentStoreCoordinator!.persistentStores[0].backend as! SQLiteStore
        log = store.statementLog
        token = log.addObserver(
            { [weak self] sql in self?.add(sql) }, installingOn: { store.connections.all.map(\.database) })
    }

    deinit { log.removeObserver(token) }

    private func add(_ sql: String) { lock.lock(); recorded.append(sql); lock.unlock() }

    /// Every statement so far, in order.
    var statements: [String] { lock.lock(); defer { lock.unlock() }; return recorded }
    /// The SELECT statements so far.
    var selects: [String] { statements.filter { $0.hasPrefix("SELECT") } }
    /// Forgets what was recorded.
    func clear() { lock.lock(); recorded.removeAll(); lock.unlock() }
}

/// Runs `sql` on the store file at `url` behind OpenCoreData's back, as another program
/// (or a damaged disk) would change it.
func alterStore(_ url: URL, _ sql: String) throws {
    let db = try DatabaseQueue(path: url.path)
    try db.write { try $0.execute(sql: sql) }
    try db.close()
}

extension PhotoLibraryFixture {
    /// Fills a new SQLite store at `url` with the photo library.
    static func populate(_ model: NSManagedObjectModel, at url: URL) throws {
        try populate(try makeContext(model, url: url))
    }
}
