import Foundation

/// A document whose contents are a Core Data store: UIKit's `UIManagedDocument`, under its
/// name so that code written for it (the Stanford lectures' Photomania) compiles here.
///
/// The document is a folder (a file package) holding the store at
/// `StoreContent/persistentStore` and, when a subclass writes any, other files in
/// `AdditionalContent`. ``managedObjectContext`` is a main-queue context whose parent, a
/// private-queue context, writes to the store: saving the document saves the first into
/// the second and the second to disk. Changes in the context are unsaved changes of the
/// document, saved by autosave within ``/OpenCoreDataFoundation/UIDocument/autosaveInterval`` and on close.
@MainActor
open class UIManagedDocument: UIDocument {
    /// The name of the store file inside the package's `StoreContent` folder.
    open class var persistentStoreName: String { "persistentStore" }

    /// The context to edit the document in, on the main queue.
    public let managedObjectContext: NSManagedObjectContext
    /// The private-queue context that writes to the store (the main context's parent).
    private let writer: NSManagedObjectContext

    /// The model of the store: by default every model in the main bundle, merged. Override
    /// it to use another model.
    open var managedObjectModel: NSManagedObjectModel {
        if let loadedModel { return loadedModel }
        let model = NSManagedObjectModel.mergedModel(from: nil) ?? NSManagedObjectModel()
        loadedModel = model
        return model
    }
    private var loadedModel: NSManagedObjectModel?

    /// Options for opening the store (e.g. `NSMigratePersistentStoresAutomaticallyOption`
    /// and `NSInferMappingModelAutomaticallyOption` for a model with a new version).
    open var persistentStoreOptions: [AnyHashable: Any]?
    /// The model configuration the store uses; `nil` for the whole model.
    open var modelConfiguration: String?

    /// A closed document for the package at `url` (which need not exist yet).
    public override init(fileURL url: URL) {
        writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        managedObjectContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        managedObjectContext.parent = writer
        super.init(fileURL: url)
    }

    /// Unsaved changes: counted ones, any change in ``managedObjectContext``, and changes its
    /// parent has not written (a save that failed after the main context saved into it).
    open override var hasUnsavedChanges: Bool {
        super.hasUnsavedChanges || managedObjectContext.hasChanges || writer.performAndWait { writer.hasChanges }
    }

    /// Saves what is unsaved, then closes the store, so a later ``/OpenCoreDataFoundation/UIDocument/open()`` reads
    /// the package as it is then.
    open override func close() async -> Bool {
        let saved = await super.close()
        if saved { closeStore() }
        return saved
    }

    /// Forgets the contexts' objects and closes the store.
    private func closeStore() {
        managedObjectContext.reset()
        writer.performAndWait {
            writer.reset()
            if let coordinator = writer.persistentStoreCoordinator {
                for store in coordinator.persistentStores { try? coordinator.remove(store) }
            }
            writer.persistentStoreCoordinator = nil
        }
    }

    /// Where the package at `url` keeps its store and its other content.
    static func storeURL(inPackage url: URL) -> URL {
        url.appendingPathComponent("StoreContent", isDirectory: true).appendingPathComponent(persistentStoreName)
    }

    static func additionalContentURL(inPackage url: URL) -> URL {
        url.appendingPathComponent("AdditionalContent", isDirectory: true)
    }

    // MARK: The store

    /// Opens the store at `storeURL` for the document's contexts; override it to set the
    /// store up differently (call `super` to keep the default).
    open func configurePersistentStoreCoordinator(
        for storeURL: URL, ofType fileType: String, modelConfiguration configuration: String?,
        storeOptions: [AnyHashable: Any]? = nil
    ) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        try coordinator.addPersistentStore(
            ofType: persistentStoreType(forFileType: fileType), configurationName: configuration,
            at: storeURL, options: storeOptions)
        writer.persistentStoreCoordinator = coordinator
    }

    /// The store type for a document type: SQLite.
    open func persistentStoreType(forFileType fileType: String) -> String { NSSQLiteStoreType }

    private func openStore(inPackage url: URL) throws {
        guard writer.persistentStoreCoordinator == nil else { return }
        try configurePersistentStoreCoordinator(
            for: Self.storeURL(inPackage: url), ofType: fileType ?? "",
            modelConfiguration: modelConfiguration, storeOptions: persistentStoreOptions)
    }

    // MARK: Reading and writing

    /// Opens the package's store (and reads its additional content). A package without a
    /// store, or with a store that cannot be opened, is an error.
    ///
    /// - Parameter url: The document package.
    /// - Throws: An error naming the package when it has no store or the store does not open.
    open override func read(from url: URL) throws {
        let store = Self.storeURL(inPackage: url)
        guard FileManager.default.fileExists(atPath: store.path) else {
            throw CocoaError(
                .fileReadCorruptFile,
                userInfo: [
                    NSFilePathErrorKey: url.path,
                    NSLocalizedDescriptionKey:
                        "\(url.path) is not a managed document: it has no StoreContent/\(Self.persistentStoreName)",
                ])
        }
        if writer.persistentStoreCoordinator != nil {
            // Reverting: what was not saved is dropped, and a package elsewhere is opened instead.
            managedObjectContext.reset()
            writer.performAndWait { writer.reset() }
            if writer.persistentStoreCoordinator?.persistentStores.first?.url?.standardizedFileURL
                != store.standardizedFileURL
            {
                closeStore()
            }
        }
        try openStore(inPackage: url)
        let additional = Self.additionalContentURL(inPackage: url)
        if FileManager.default.fileExists(atPath: additional.path) { try readAdditionalContent(from: additional) }
    }

    /// Saves ``managedObjectContext`` into its parent and gathers the additional content.
    ///
    /// - Parameter typeName: The file type to write.
    /// - Returns: The additional content, wrapped for ``writeContents(_:andAttributes:safelyTo:for:)``.
    /// - Throws: What the context's save or ``additionalContent(for:)`` throws.
    open override func contents(forType typeName: String) throws -> Any {
        if managedObjectContext.hasChanges { try managedObjectContext.save() }
        return DocumentContents(additional: try additionalContent(for: Self.additionalContentURL(inPackage: fileURL)))
    }

    /// Makes the package when it is new, writes the store and the additional content.
    ///
    /// - Parameters:
    ///   - contents: What ``contents(forType:)`` returned.
    ///   - additionalFileAttributes: File attributes, unused by the package.
    ///   - url: The package; it must be where the document was opened or created.
    ///   - saveOperation: Whether the document is created or overwritten.
    /// - Throws: An error that fails the save, such as a `url` other than the document's.
    open override func writeContents(
        _ contents: Any, andAttributes additionalFileAttributes: [AnyHashable: Any]?, safelyTo url: URL,
        for saveOperation: UIDocument.SaveOperation
    ) throws {
        if let coordinator = writer.persistentStoreCoordinator, let store = coordinator.persistentStores.first,
            store.url?.standardizedFileURL != Self.storeURL(inPackage: url).standardizedFileURL
        {
            throw CocoaError(
                .fileWriteUnsupportedScheme,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "A managed document is saved where it was opened (\(fileURL.path)), not to \(url.path)"
                ])
        }
        let isNew = !FileManager.default.fileExists(atPath: url.path)
        do {
            try FileManager.default.createDirectory(
                at: Self.storeURL(inPackage: url).deletingLastPathComponent(), withIntermediateDirectories: true)
            try openStore(inPackage: url)
            try writer.performAndWait {
                if writer.hasChanges { try writer.save() }
            }
        } catch {
            // A package this save began is removed again, so creating it can be tried again.
            if isNew {
                closeStore()
                try? FileManager.default.removeItem(at: url)
            }
            throw error
        }
        if let additional = (contents as? DocumentContents)?.additional {
            let folder = Self.additionalContentURL(inPackage: url)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try writeAdditionalContent(
                additional, to: folder, originalContentsURL: saveOperation == .forCreating ? nil : folder)
        }
    }

    /// The content besides the store to write in the package's `AdditionalContent` folder
    /// at `absoluteURL`; override it (with the two methods below) to keep some. The default
    /// has none.
    ///
    /// - Parameter absoluteURL: The document package being written.
    /// - Returns: The content, handed to ``writeAdditionalContent(_:to:originalContentsURL:)``.
    /// - Throws: An error that stops the save.
    open func additionalContent(for absoluteURL: URL) throws -> Any {
        NoAdditionalContent()
    }

    /// Reads the content ``additionalContent(for:)`` gave, from the folder at `absoluteURL`.
    ///
    /// - Parameter absoluteURL: The package's `AdditionalContent` folder.
    /// - Throws: An error that keeps the document from opening.
    open func readAdditionalContent(from absoluteURL: URL) throws {}

    /// Writes `content` from ``additionalContent(for:)`` into the folder at `absoluteURL`
    /// (`absoluteOriginalContentsURL`: where it was before, when the document existed).
    ///
    /// - Parameters:
    ///   - content: What ``additionalContent(for:)`` returned.
    ///   - absoluteURL: The package's `AdditionalContent` folder.
    ///   - absoluteOriginalContentsURL: The folder as it was before this save, or `nil`.
    /// - Throws: An error that fails the save.
    open func writeAdditionalContent(
        _ content: Any, to absoluteURL: URL, originalContentsURL absoluteOriginalContentsURL: URL?
    ) throws {}
}

/// What a managed document writes besides its store.
private struct DocumentContents {
    private let content: Any

    init(additional content: Any) { self.content = content }

    /// The subclass's additional content, `nil` when it keeps none.
    var additional: Any? { content is NoAdditionalContent ? nil : content }
}

/// The default additional content: nothing to write.
private struct NoAdditionalContent {}
