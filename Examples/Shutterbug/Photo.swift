import Foundation
import OpenCoreData

// The lecture's classes as Xcode generates them, with `@Managed` for `@NSManaged`.

public class Photo: NSManagedObject {}

extension Photo {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Photo> {
        NSFetchRequest<Photo>(entityName: "Photo")
    }

    @Managed public var title: String?
    @Managed public var subtitle: String?
    @Managed public var uploadDate: Date?
    @Managed public var thumbnailData: Data?
    @Managed public var photoURL: String?
    @Managed public var thumbnailURL: String?
    @Managed public var uniqueId: String?
    @Managed public var lastViewedDate: Date?
    @Managed public var whoTook: Photographer?
}

public class Photographer: NSManagedObject {
    /// The section a photographer is listed under: the first letter of the name. Read by key
    /// (`sectionNameKeyPath: "firstLetter"`); an app on Apple platforms declares it as an
    /// `@objc var`, which key-value coding finds through the Objective-C runtime. Without one,
    /// the object answers for the key itself.
    public override func value(forUndefinedKey key: String) -> Any? {
        guard key == "firstLetter" else { return super.value(forUndefinedKey: key) }
        return name?.first.map { String($0).uppercased() } ?? "?"
    }
}

extension Photographer {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Photographer> {
        NSFetchRequest<Photographer>(entityName: "Photographer")
    }

    @Managed public var name: String?
    @Managed public var photos: NSSet?
}
