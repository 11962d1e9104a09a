import Foundation

/// A document kept at a URL: opened, edited, saved (also automatically) and closed, with
/// a state that says whether it is safe to edit. UIKit's `UIDocument`, which does not exist
/// off Apple platforms, under its name so that `UIManagedDocument` subclasses it as there.
///
/// As UIKit's, it belongs to the main actor and calls its completion handlers there. Unlike
/// UIKit's, it reads and writes on the main actor too (a command-line program has no
/// interface to keep responsive), and there is no file coordination, iCloud or conflict
/// versions: ``State/inConflict`` is never set. See docs/DEVIATIONS.md.
@MainActor
open class UIDocument: NSObject {
    /// What a document allows now; ``normal`` is no flag.
    public struct State: OptionSet, Sendable {
        public let rawValue: UInt
        /// Makes a state from its bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Open, saved or with changes, and editable.
        public static let normal: State = []
        /// Not open (before `open` and after `close`), or it could not be read.
        public static let closed = State(rawValue: 1 << 0)
        /// Other versions of the file conflict with this one (never set here).
        public static let inConflict = State(rawValue: 1 << 1)
        /// The last save failed.
        public static let savingError = State(rawValue: 1 << 2)
        /// Edits are not safe now (while reverting or handling an error).
        public static let editingDisabled = State(rawValue: 1 << 3)
        /// ``UIDocument/progress`` reports a load or save in progress.
        public static let progressAvailable = State(rawValue: 1 << 4)
    }

    /// Whether a save makes the file or writes over it.
    public enum SaveOperation: Int, Sendable {
        /// The file must not exist yet.
        case forCreating = 0
        /// The file is replaced.
        case forOverwriting = 1
    }

    /// How a change affects the count of unsaved changes.
    public enum ChangeKind: Int, Sendable {
        /// A change was made.
        case done = 0
        /// A change was undone.
        case undone = 1
        /// A change was redone.
        case redone = 2
        /// The document was saved or reverted: nothing is unsaved.
        case cleared = 3
    }

    /// Posted (object: the document) whenever ``documentState`` changes.
    public static let stateChangedNotification = Notification.Name("UIDocumentStateChangedNotification")

    /// Where the document is.
    public private(set) var fileURL: URL
    /// The document's name for people: the file name without its extension.
    open var localizedName: String { fileURL.deletingPathExtension().lastPathComponent }
    /// The document's type: its file's extension (UIKit gives a UTI, which Linux lacks).
    open var fileType: String? { fileURL.pathExtension.isEmpty ? nil : fileURL.pathExtension }
    /// When the file was last read or written.
    open var fileModificationDate: Date?
    /// The progress of a load or save while ``State/progressAvailable`` is set.
    public private(set) var progress: Progress?
    /// The document's undo manager, made when first asked for.
    open var undoManager: UndoManager! {
        get {
            if storedUndoManager == nil { storedUndoManager = UndoManager() }
            return storedUndoManager
        }
        set { storedUndoManager = newValue }
    }
    private var storedUndoManager: UndoManager?

    /// What the document allows now; changes are posted as ``stateChangedNotification``.
    public private(set) var documentState: State = .closed {
        didSet {
            guard documentState != oldValue else { return }
            NotificationCenter.default.post(name: Self.stateChangedNotification, object: self)
        }
    }

    /// How often unsaved changes are saved without being asked, in seconds (UIKit chooses
    /// its own interval and does not expose it). Not in UIKit.
    public var autosaveInterval: TimeInterval = 20 {
        didSet { scheduleAutosave() }
    }
    private var changeCount = 0
    private var autosaveTask: Task<Void, Never>?

    /// A closed document for the file at `url` (which need not exist yet).
    public init(fileURL url: URL) {
        fileURL = url
        super.init()
    }

    // MARK: Opening, saving, closing

    /// Reads the document (``read(from:)``) and makes it editable; `true` on success. A
    /// missing or unreadable file fails: ``handleError(_:userInteractionPermitted:)`` is
    /// called and the document stays closed.
    open func open() async -> Bool {
        guard documentState.contains(.closed) else { return true }
        do {
            guard FileManager.default.fileExists(atPath: fileURL.path) else {
                throw CocoaError(
                    .fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: fileURL.path, NSURLErrorKey: fileURL])
            }
            try withProgress { try read(from: fileURL) }
            fileModificationDate = Self.modificationDate(of: fileURL)
            changeCount = 0
            documentState = .normal
            scheduleAutosave()
            return true
        } catch {
            report(error)
            return false
        }
    }

    /// ``open()`` with a completion handler, called on the main actor.
    open func open(completionHandler: (@MainActor @Sendable (Bool) -> Void)? = nil) {
        Task { completionHandler?(await open()) }
    }

    /// Writes the document to `url` (``contents(forType:)`` then
    /// ``writeContents(_:andAttributes:safelyTo:for:)``); `true` on success. Creating over an
    /// existing file fails. A failed save sets ``State/savingError`` until one succeeds.
    open func save(to url: URL, for saveOperation: SaveOperation) async -> Bool {
        do {
            if saveOperation == .forCreating, FileManager.default.fileExists(atPath: url.path) {
                throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: url.path, NSURLErrorKey: url])
            }
            try withProgress {
                let contents = try contents(forType: fileType ?? "")
                let attributes = try fileAttributesToWrite(to: url, for: saveOperation)
                try writeContents(contents, andAttributes: attributes, safelyTo: url, for: saveOperation)
            }
            fileURL = url
            fileModificationDate = Self.modificationDate(of: url)
            changeCount = 0
            documentState = []
            scheduleAutosave()
            return true
        } catch {
            documentState.insert(.savingError)
            report(error)
            return false
        }
    }

    /// ``save(to:for:)`` with a completion handler, called on the main actor.
    open func save(
        to url: URL, for saveOperation: SaveOperation, completionHandler: (@MainActor @Sendable (Bool) -> Void)? = nil
    ) {
        Task { completionHandler?(await save(to: url, for: saveOperation)) }
    }

    /// Saves unsaved changes, if any, to ``fileURL``; `true` when nothing is left unsaved.
    open func autosave() async -> Bool {
        guard !documentState.contains(.closed), hasUnsavedChanges else { return true }
        return await save(to: fileURL, for: .forOverwriting)
    }

    /// ``autosave()`` with a completion handler, called on the main actor.
    open func autosave(completionHandler: (@MainActor @Sendable (Bool) -> Void)? = nil) {
        Task { completionHandler?(await autosave()) }
    }

    /// Saves unsaved changes and closes the document; `true` when the save (if any) succeeded.
    /// The document is closed either way.
    open func close() async -> Bool {
        guard !documentState.contains(.closed) else { return true }
        let saved = await autosave()
        autosaveTask?.cancel()
        autosaveTask = nil
        documentState = .closed
        return saved
    }

    /// ``close()`` with a completion handler, called on the main actor.
    open func close(completionHandler: (@MainActor @Sendable (Bool) -> Void)? = nil) {
        Task { completionHandler?(await close()) }
    }

    /// Discards unsaved changes and reads the document again from `url`; edits are disabled
    /// meanwhile.
    open func revert(toContentsOf url: URL) async -> Bool {
        documentState.insert(.editingDisabled)
        defer { documentState.remove(.editingDisabled) }
        do {
            try read(from: url)
            fileURL = url
            fileModificationDate = Self.modificationDate(of: url)
            changeCount = 0
            return true
        } catch {
            report(error)
            return false
        }
    }

    // MARK: Changes

    /// Whether there are changes that were not saved.
    open var hasUnsavedChanges: Bool { changeCount != 0 }

    /// Counts a change (``ChangeKind/done``, ``ChangeKind/redone``), takes one back
    /// (``ChangeKind/undone``) or forgets them all (``ChangeKind/cleared``); unsaved changes
    /// are saved within ``autosaveInterval``.
    open func updateChangeCount(_ change: ChangeKind) {
        switch change {
        case .done, .redone: changeCount += 1
        case .undone: changeCount -= 1
        case .cleared: changeCount = 0
        }
    }

    private func scheduleAutosave() {
        autosaveTask?.cancel()
        guard !documentState.contains(.closed) else { return }
        let interval = autosaveInterval
        autosaveTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(max(interval, 0.001) * 1e9))
                guard !Task.isCancelled, let self else { return }
                if self.hasUnsavedChanges, !self.documentState.contains(.editingDisabled) { _ = await self.autosave() }
            }
        }
    }

    // MARK: Errors

    /// Called when opening, saving or reverting fails. Override it to tell the user; call
    /// ``finishedHandlingError(_:recovered:)`` when done (the default does so at once).
    /// Edits are disabled until then.
    open func handleError(_ error: Error, userInteractionPermitted: Bool) {
        finishedHandlingError(error, recovered: false)
    }

    /// Ends the handling of `error`: edits are allowed again.
    open func finishedHandlingError(_ error: Error, recovered: Bool) {
        documentState.remove(.editingDisabled)
    }

    private func report(_ error: Error) {
        documentState.insert(.editingDisabled)
        handleError(error, userInteractionPermitted: true)
    }

    // MARK: Reading and writing (overridden by subclasses)

    /// Reads the document at `url`: by default its data, handed to ``load(fromContents:ofType:)``.
    ///
    /// - Parameter url: The document's file.
    /// - Throws: An error reading the file or loading its contents, which makes opening fail.
    open func read(from url: URL) throws {
        try load(fromContents: Data(contentsOf: url), ofType: fileType)
    }

    /// Takes the contents read by ``read(from:)``. The default keeps nothing.
    ///
    /// - Parameters:
    ///   - contents: What ``read(from:)`` read: the file's `Data` by default.
    ///   - typeName: The document's file type, or `nil`.
    /// - Throws: An error when the contents cannot be used; the document does not open.
    open func load(fromContents contents: Any, ofType typeName: String?) throws {}

    /// What to write: by default no data.
    ///
    /// - Parameter typeName: The file type to write.
    /// - Returns: The contents, `Data` for the default ``writeContents(_:andAttributes:safelyTo:for:)``.
    /// - Throws: An error that stops the save.
    open func contents(forType typeName: String) throws -> Any { Data() }

    /// File attributes to write with the contents: by default none.
    ///
    /// - Parameters:
    ///   - url: Where the document is written.
    ///   - saveOperation: Whether the document is created or overwritten.
    /// - Returns: The attributes to give the written file.
    /// - Throws: An error that stops the save.
    open func fileAttributesToWrite(to url: URL, for saveOperation: SaveOperation) throws -> [AnyHashable: Any] { [:] }

    /// Writes `contents` to `url`: by default `Data`, replacing the file in one step.
    ///
    /// - Parameters:
    ///   - contents: What ``contents(forType:)`` returned.
    ///   - additionalFileAttributes: What ``fileAttributesToWrite(to:for:)`` returned; the
    ///     default implementation does not apply them.
    ///   - url: Where to write.
    ///   - saveOperation: Whether the document is created or overwritten.
    /// - Throws: An error that fails the save; the file is left as it was.
    open func writeContents(
        _ contents: Any, andAttributes additionalFileAttributes: [AnyHashable: Any]?, safelyTo url: URL,
        for saveOperation: SaveOperation
    ) throws {
        guard let data = contents as? Data else {
            throw CocoaError(
                .fileWriteUnknown,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "UIDocument writes Data; override writeContents(_:andAttributes:safelyTo:for:) for \(type(of: contents))"
                ])
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
    }

    // MARK: Helpers

    private func withProgress(_ body: () throws -> Void) rethrows {
        progress = Progress(totalUnitCount: 1)
        documentState.insert(.progressAvailable)
        defer {
            progress?.completedUnitCount = 1
            progress = nil
            documentState.remove(.progressAvailable)
        }
        try body()
    }

    package static func modificationDate(of url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }
}
