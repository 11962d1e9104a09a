/// Where a model being loaded comes from: the file read and how messages name it.
package struct ModelFileSource: Sendable {
    /// The XML file (a model's `contents`).
    package let url: URL

    package init(url: URL) { self.url = url }
    /// The file as messages show it: `Model.xcdatamodel/contents` (or `elements`), with
    /// the `.xcdatamodeld` bundle in front for a version of one.
    package var displayName: String {
        let components = url.standardizedFileURL.pathComponents
        var shown = [components.last ?? url.path]
        if shown[0] == "contents" || shown[0] == ModelBundleLayout.xcode3ElementsFile, components.count >= 2 {
            shown.insert(components[components.count - 2], at: 0)
            if components.count >= 3, components[components.count - 3].hasSuffix(".xcdatamodeld") {
                shown.insert(components[components.count - 3], at: 0)
            }
        }
        return shown.joined(separator: "/")
    }
}

/// Why a model file could not be loaded, naming the file, line and element.
///
/// `NSManagedObjectModel.load(contentsOf:)` throws it; Core Data's failable
/// `init?(contentsOf:)` only returns `nil`, which tells a user nothing about which of
/// a model's hundreds of lines is wrong.
public struct ModelLoadingError: Error, CustomStringConvertible, Sendable {
    /// The file that was being read.
    public let fileURL: URL
    /// The line of the element at fault (1-based), when the error is about one.
    public let line: Int?
    /// The element at fault as it appears in the file, such as `<relationship name="owner">`.
    public let element: String?
    /// What is wrong, as a sentence fragment following the element.
    public let reason: String
    /// The file as the message names it (`Model.xcdatamodel/contents`).
    public let fileName: String

    package init(source: ModelFileSource, line: Int?, element: String?, reason: String) {
        fileURL = source.url
        fileName = source.displayName
        self.line = line
        self.element = element
        self.reason = reason
    }

    /// `Model.xcdatamodel/contents line 12: <relationship name="owner"> in entity Item names inverse …`.
    public var description: String {
        var message = fileName
        if let line { message += " line \(line)" }
        message += ": "
        if let element { message += element + " " }
        return message + reason
    }
}

extension ModelLoadingError: LocalizedError {
    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
