import CDToolCore
import Foundation
import OpenCoreData

/// A Core Data store as web pages: the store's overview, its model, each entity's objects
/// (filtered by a predicate, sorted, paged), each object, its persistent history, exports as
/// CSV or JSON, and an event stream (`/events`) that tells open pages of other processes' saves.
///
/// The store is opened read-only; nothing a page does can write to it unless the browser is
/// made with `allowsEdits`, which adds edit forms saved through a context. Every request must
/// carry ``token`` (as `?token=`, then kept in a cookie) or is answered 401, as notebook
/// servers do. The pages are plain functions of a ``BrowserRequest``; `cdtool-serve` puts
/// them behind an HTTP server.
public final class StoreBrowser: @unchecked Sendable {
    /// The store: its file, or (with the PostgreSQL engine) its database's URL as given, any
    /// password included (the pages show it without).
    public let storeURL: URL
    /// The access token every request must carry.
    public let token: String
    /// The model the pages read the store with.
    let model: NSManagedObjectModel
    /// Where ``model`` came from, for the overview (`given`, `cached in the store`, …).
    let modelSource: String
    /// Whether ``model`` was given (and so checked against the store's version hashes).
    let modelWasGiven: Bool
    /// Whether a given model fits the store (`nil` when the model came from the store).
    let compatibility: StoreInspection.Compatibility?
    /// The read-only context every page reads through, on its own queue.
    let context: NSManagedObjectContext
    /// The store as its engine keeps it, with a read-only connection for what Core Data's
    /// API does not say: pages in primary-key order that start after a given row, an object's
    /// `Z_OPT`, history counts, the overview's facts.
    let store: any BrowsedStore
    /// Each entity's table, the entity numbers of its rows there (its own and its
    /// subentities'), and whether those are all the table's rows.
    let rowsByEntity: [String: (table: String, numbers: [Int], wholeTable: Bool)]
    /// Each entity number's entity name.
    let entityNames: [Int: String]
    /// Whether the store keeps persistent history (it has Core Data's history tables).
    let keepsHistory: Bool
    /// The writing side, when the browser was made with `allowsEdits`.
    let editor: StoreEditor?
    /// Saves to the store by other processes, for pages that follow them.
    public let changes: ChangeFeed
    /// The name of the cookie that keeps the token.
    static let cookieName = "cdtool_token"

    /// Opens the store at `storeURL` read-only, with `model` or, without one, the model the
    /// store caches or one inferred from its tables.
    ///
    /// `storeURL` is a SQLite file, or a PostgreSQL database's URL
    /// (`postgres://user@host:port/database`), whose schema `storeOptions` may name
    /// (`NSPostgreSQLSchemaNameOption`). A PostgreSQL store is read with the model it caches
    /// when none is given; none is inferred from its tables.
    ///
    /// With `allowsEdits`, the store is also opened read-write for one context that saves the
    /// objects' edit forms (`/object/Entity/p12/edit`), each form carrying a CSRF token. That
    /// needs the store's own model (given, or cached in the store): a model inferred from the
    /// tables is a guess, not one to write with.
    ///
    /// - Throws: A ``CDToolCore/CDToolError`` when the file or database is missing, cannot be
    ///   reached or holds no store, the model does not fit it, or edits are asked for and the
    ///   store does not open read-write.
    public init(
        storeURL: URL, storeOptions: [String: NSObject] = [:], model: NSManagedObjectModel?, token: String,
        allowsEdits: Bool = false
    ) throws {
        guard Self.isValidToken(token) else {
            throw CDToolError("an access token is at least 16 letters, digits, '-' or '_'")
        }
        self.storeURL = storeURL
        self.token = token
        modelWasGiven = model != nil
        do {
            // Read-only (a missing or foreign file is an error, never a new store); without a
            // model, the inspection recovers the store's own.
            let store = try StoreBrowser.openStore(storeURL, options: storeOptions)
            self.store = store
            let inspection = try store.inspect(model: model)
            if let model {
                self.model = model
                modelSource = "given"
                compatibility = inspection.compatibility
            } else if let recovered = inspection.inferredModel, let source = inspection.inferredModelSource {
                self.model = recovered
                modelSource = Self.describe(source)
                compatibility = nil
            } else {
                throw CDToolError("no model could be recovered from the store")
            }
            keepsHistory = try store.read { try $0.tableExists("ATRANSACTION") }
            if allowsEdits, model == nil, inspection.inferredModelSource != .modelCache {
                throw CDToolError(
                    "--allow-edits needs the store's own model: the store caches none, so give it with --model")
            }
            if allowsEdits, let compatibility, !compatibility.isCompatible {
                throw CDToolError(
                    "--allow-edits needs a model that fits the store; this one does not (entities whose hashes differ or are missing: \(compatibility.mismatchedEntities.joined(separator: ", ")))"
                )
            }
            // Opened for writing before the read-only container, whose snapshot connection
            // holds a read transaction that would keep a switch of journal mode waiting. The
            // store was found above, so this opening never makes one.
            do {
                editor =
                    allowsEdits ? try StoreEditor(store: store, model: self.model, trackingHistory: keepsHistory) : nil
            } catch {
                throw CDToolError("--allow-edits: the store does not open for writing: \(CDToolError(wrapping: error))")
            }
            // Live updates need a watcher, which a WAL store in a folder nobody may write (opened
            // immutable) cannot have: such a store is browsed without them.
            let container: NSPersistentContainer
            do {
                do {
                    container = try ObjectDump.openReadOnly(
                        storeURL, type: store.type, options: store.options, model: self.model,
                        inferred: model == nil, trackingHistory: keepsHistory, postingRemoteChanges: true)
                } catch let error as NSError where error.code == NSPersistentStoreIncompatibleVersionHashError {
                    throw error
                } catch {
                    container = try ObjectDump.openReadOnly(
                        storeURL, type: store.type, options: store.options, model: self.model,
                        inferred: model == nil, trackingHistory: keepsHistory)
                }
            } catch let error as NSError where error.code == NSPersistentStoreIncompatibleVersionHashError {
                // The store decides (a store Core Data wrote may open despite other hashes); when it
                // refuses, the page's reader is told which entities differ.
                throw CDToolError(
                    "the model does not fit the store (entities whose version hashes differ or are missing: \((compatibility?.mismatchedEntities ?? []).joined(separator: ", ")))"
                )
            }
            context = container.newBackgroundContext()
            changes = ChangeFeed(coordinator: container.persistentStoreCoordinator)
            var names: [Int: String] = [:]
            var children: [String: [String]] = [:]
            for entity in inspection.entities {
                names[entity.number] = entity.name
                if let parent = entity.parent { children[parent, default: []].append(entity.name) }
            }
            // A damaged Z_SUPER can make a cycle: each entity is visited once.
            func descendants(_ name: String) -> [String] {
                var found: [String] = []
                var pending = [name]
                while let next = pending.popLast() {
                    guard !found.contains(next) else { continue }
                    found.append(next)
                    pending += children[next] ?? []
                }
                return found
            }
            let byName = Dictionary(inspection.entities.map { ($0.name, $0) }) { first, _ in first }
            var rows: [String: (table: String, numbers: [Int], wholeTable: Bool)] = [:]
            for entity in inspection.entities {
                let numbers = descendants(entity.name).compactMap { byName[$0]?.number }
                let sharing = inspection.entities.filter { $0.table == entity.table }.count
                rows[entity.name] = (entity.table, numbers, numbers.count >= sharing)
            }
            rowsByEntity = rows
            entityNames = names
        } catch {
            throw CDToolError(wrapping: error)
        }
    }

    /// Closes the browser's connections to the store (its reading and editing coordinators'
    /// stores, its own connection), for a program that goes on after browsing; pages asked for
    /// afterwards are errors.
    public func close() {
        for coordinator in [context.persistentStoreCoordinator, editor?.context.persistentStoreCoordinator] {
            for added in coordinator?.persistentStores ?? [] { try? coordinator?.remove(added) }
        }
        store.close()
    }

    private static func describe(_ source: StoreInspection.RecoveredModelSource) -> String {
        switch source {
        case .modelCache: "cached in the store (Z_MODELCACHE)"
        case .tables: "inferred from the store's tables (the store caches no model)"
        case .tablesAfterUnreadableCache(let reason):
            "inferred from the store's tables (the cached model is unreadable: \(reason))"
        }
    }

    /// Whether `request` may open the change stream (`/events`): it carries the token. The
    /// stream itself is the server's to send, from ``changes``.
    public func acceptsEventStream(_ request: BrowserRequest) -> Bool {
        request.method == "GET" && request.path == "/events" && carriesTokenCookie(request)
    }

    /// Whether `request`'s cookie holds the token.
    private func carriesTokenCookie(_ request: BrowserRequest) -> Bool {
        request.cookies[Self.cookieName].map { Self.same($0, token) } ?? false
    }

    /// The page, export or error for `request`.
    public func respond(to request: BrowserRequest) -> BrowserResponse {
        var cookie: String?
        if let given = request.query["token"], Self.same(given, token) {
            // Kept a day (the token is new each run), so a browser restarted meanwhile still has it.
            cookie = "\(Self.cookieName)=\(token); Path=/; Max-Age=86400; HttpOnly; SameSite=Strict"
        } else if !carriesTokenCookie(request) {
            return .html(
                HTML.page(
                    title: "Access token needed", store: store.name,
                    body:
                        "<p>Open the address <code>cdtool serve</code> printed when it started: it ends in <code>?token=…</code>.</p>"
                ), status: 401)
        }
        var response = route(request)
        if let cookie { response.headers.append(("Set-Cookie", cookie)) }
        return response
    }

    private func route(_ request: BrowserRequest) -> BrowserResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if request.method == "POST", editor != nil, parts.count == 4, parts[0] == "object", parts[3] == "edit" {
            return saveEdit(entity: parts[1], key: parts[2], form: request.form)
        }
        guard request.method == "GET" else {
            return error(
                405,
                editor == nil
                    ? "This server is read-only: only GET requests are answered."
                    : "Only an object's edit form (/object/Entity/p12/edit) is sent with POST.")
        }
        switch parts.first {
        case nil: return overviewPage(request.query)
        case "model" where parts.count == 1: return modelPage()
        case "history" where parts.count == 1: return historyPage(request.query)
        case "browser.js" where parts.count == 1:
            return BrowserResponse(contentType: "text/javascript; charset=utf-8", body: Data(Self.script.utf8))
        case "entity" where parts.count == 2: return entityPage(parts[1], request.query)
        case "object" where parts.count == 3:
            return objectPage(entity: parts[1], key: parts[2], saved: request.query["saved"] != nil)
        case "object" where parts.count == 4 && parts[3] == "edit": return editPage(entity: parts[1], key: parts[2])
        case "object" where parts.count == 5 && parts[1] == "x-coredata:":
            // The whole object ID URI (`/object/x-coredata://UUID/Entity/p12`), of this store.
            let uuid = context.persistentStoreCoordinator?.persistentStores.first?.identifier
            guard parts[2] == uuid else { return error(404, "That object ID belongs to another store.") }
            return objectPage(entity: parts[3], key: parts[4])
        case "export" where parts.count == 2: return export(parts[1], request.query)
        default: return error(404, "There is no page at \(request.path).")
        }
    }

    /// An error page with `status` and `message`.
    func error(_ status: Int, _ message: String) -> BrowserResponse {
        .html(
            HTML.page(
                title: "Error \(status)", store: store.name,
                body: "<p class=\"error\">\(HTML.escape(message))</p>"), status: status)
    }

    /// Runs `body` on the context's queue.
    func reading<T>(_ body: (NSManagedObjectContext) throws -> T) rethrows -> T {
        try context.performAndWait {
            defer { context.reset() }
            return try body(context)
        }
    }

    /// Compares without stopping at the first difference, so timing tells nothing of the token.
    static func same(_ given: String, _ token: String) -> Bool {
        let (a, b) = (Array(given.utf8), Array(token.utf8))
        var difference = a.count ^ b.count
        for index in 0..<min(a.count, b.count) { difference |= Int(a[index] ^ b[index]) }
        return difference == 0
    }

    /// Whether `token` can be an access token: at least 16 characters, all letters,
    /// digits, `-` or `_`, so it fits a cookie and an address as it is.
    public static func isValidToken(_ token: String) -> Bool {
        token.count >= 16
            && token.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            }
    }

    /// A new random access token (32 hex digits).
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

extension StoreBrowser {
    /// The browser's one script: it listens to `/events` and, when another process saves,
    /// loads the page again and puts its new `<main>` in place (unless the reader is typing
    /// in a field), one reload at a time and at most two a second; a page that ran the
    /// integrity check, and an edit form (whose save reports a conflict instead), are left
    /// alone. The store's strings arrive escaped in that HTML. While the stream is open the
    /// page's body says so (`data-live="connected"`), and its navigation shows it.
    static let script = """
        "use strict";
        if (!location.search.includes("check=") && !document.querySelector("form[method=post]")) {
          const source = new EventSource("/events");
          addEventListener("pagehide", () => source.close());
          source.addEventListener("open", () => { document.body.dataset.live = "connected"; });
          source.addEventListener("error", () => { document.body.dataset.live = "disconnected"; });
          let running = false, again = false;
          async function refresh() {
            if (running) { again = true; return; }
            running = true;
            try {
              do {
                again = false;
                const field = document.activeElement;
                if (field && ["INPUT", "TEXTAREA", "SELECT"].includes(field.tagName)) break;
                const response = await fetch(location.href, { credentials: "same-origin" });
                if (!response.ok) break;
                const page = new DOMParser().parseFromString(await response.text(), "text/html");
                const main = page.querySelector("main");
                const current = document.querySelector("main");
                if (main && current) current.replaceWith(document.adoptNode(main));
                await new Promise((done) => setTimeout(done, 500));
              } while (again);
            } finally {
              running = false;
            }
          }
          source.addEventListener("change", refresh);
        }
        """
}
