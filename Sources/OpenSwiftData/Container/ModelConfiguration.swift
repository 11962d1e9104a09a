import OpenCoreData

/// Where and how a container stores (part of) its schema: a file, or memory only.
///
/// The default store is `default.store` in the user's application support folder, as in
/// SwiftData (on Linux, `$XDG_DATA_HOME` or `~/.local/share`). Stores are Core Data SQLite
/// stores, so Core Data code (and OpenCoreData) opens them too.
public struct ModelConfiguration: Identifiable, Hashable, Sendable {
    /// The configuration's name (`"default"` unless given).
    public let name: String
    /// The store file.
    public let url: URL
    /// Whether the store lives in memory only and is gone with the container.
    public let isStoredInMemoryOnly: Bool
    /// Whether contexts may save to the store (`false` opens it read-only).
    public let allowsSave: Bool
    /// The part of the container's schema this store holds, if not all of it.
    public var schema: Schema?
    /// The app group whose container holds the store (accepted; ignored off Apple platforms).
    public let groupContainer: GroupContainer
    /// The CloudKit database the store syncs with (accepted; OpenSwiftData does not sync).
    public let cloudKitDatabase: CloudKitDatabase

    /// The configuration's identity: its name.
    public var id: String { name }

    /// A configuration of a store in the application support folder, or in memory.
    public init(
        _ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
        groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
        url =
            isStoredInMemoryOnly
            ? URL(fileURLWithPath: "/dev/null")
            : Self.applicationSupportDirectory.appendingPathComponent("\(name).store")
    }

    /// A configuration of the store at `url`.
    public init(
        _ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        self.name = name ?? "default"
        self.schema = schema
        self.url = url
        self.isStoredInMemoryOnly = url.path == "/dev/null"
        self.allowsSave = allowsSave
        self.groupContainer = .automatic
        self.cloudKitDatabase = cloudKitDatabase
    }

    /// The user's application support folder.
    static var applicationSupportDirectory: URL {
        FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
    }

    /// The app group container of a configuration.
    public struct GroupContainer: Hashable, Sendable {
        let identifier: String?
        /// The app's first app group, if any.
        public static let automatic = GroupContainer(identifier: nil)
        /// No app group: the app's own container.
        public static let none = GroupContainer(identifier: "")
        /// The app group with this identifier.
        public static func identifier(_ groupName: String) -> GroupContainer { GroupContainer(identifier: groupName) }
    }

    /// The CloudKit database of a configuration.
    public struct CloudKitDatabase: Hashable, Sendable {
        let identifier: String?
        /// The app's CloudKit container, if it has one.
        public static let automatic = CloudKitDatabase(identifier: nil)
        /// No CloudKit sync.
        public static let none = CloudKitDatabase(identifier: "")
        /// The private database of the CloudKit container with this identifier.
        public static func `private`(_ containerIdentifier: String) -> CloudKitDatabase {
            CloudKitDatabase(identifier: containerIdentifier)
        }
    }

    public static func == (lhs: ModelConfiguration, rhs: ModelConfiguration) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly
            && lhs.allowsSave == rhs.allowsSave
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
    }
}
