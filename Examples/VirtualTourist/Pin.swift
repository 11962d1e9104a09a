import Foundation
import OpenCoreData

// The classes as Xcode generates them, with `@Managed` for `@NSManaged`.

public class Pin: NSManagedObject {}

extension Pin {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Pin> {
        NSFetchRequest<Pin>(entityName: "Pin")
    }

    @Managed public var latitude: Double
    @Managed public var longitude: Double
    @Managed public var creationDate: Date?
    @Managed public var collectionPage: Int64
    @Managed public var photos: NSSet?
}

public class Photo: NSManagedObject {}

extension Photo {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Photo> {
        NSFetchRequest<Photo>(entityName: "Photo")
    }

    @Managed public var imageData: Data?
    @Managed public var url: String?
    @Managed public var pin: Pin?
}
