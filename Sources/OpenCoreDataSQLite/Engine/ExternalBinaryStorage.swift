import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// Core Data's external binary storage: small values inline behind a `0x01` marker,
/// large ones in `.<store>_SUPPORT/_EXTERNAL_DATA/<UUID>` behind `0x02` and the UUID.
struct ExternalBinaryStorage {
    let url: URL?

    var directory: URL? {
        url.map { SQLiteStore.supportDirectory(for: $0).appendingPathComponent("_EXTERNAL_DATA") }
    }

    /// A value as its column stores it: large data of an external-storage attribute
    /// goes to a new file (returned, so a failed save can remove it).
    func columnValue(_ value: Any?, for attribute: NSAttributeDescription) throws -> (column: SQLScalar, file: URL?) {
        guard attribute.allowsExternalBinaryDataStorage, let value else {
            return (
                try SQLValueCoding.scalar(
                    value, type: attribute.attributeType, transformerName: attribute.valueTransformerName), nil
            )
        }
        let data: Data
        if attribute.attributeType == .transformableAttributeType {
            data = try ValueTransformerRegistry.encode(value, transformerName: attribute.valueTransformerName)
        } else if let bytes = value as? Data {
            data = bytes
        } else {
            return (try SQLValueCoding.scalar(value, type: attribute.attributeType), nil)
        }
        let (column, file) = try write(data)
        return (column.sqlScalar, file)
    }

    func write(_ data: Data) throws -> (column: Data, file: URL?) {
        guard data.count >= SQLiteStore.externalStorageThreshold, let directory else {
            return (Data([0x01]) + data, nil)
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let name = UUID().uuidString
        let file = directory.appendingPathComponent(name)
        try data.write(to: file, options: .atomic)
        return (Data([0x02]) + Data(name.utf8) + Data([0x00]), file)
    }

    func read(_ column: Data) throws -> Data? {
        guard let marker = column.first else { return column }
        switch marker {
        case 0x01:
            return column.dropFirst()
        case 0x02:
            guard let file = fileURL(forColumnValue: column) else { return nil }
            do {
                return try Data(contentsOf: file)
            } catch {
                throw CoreDataError.make(
                    NSFileReadNoSuchFileError, "External data file \(file.path) is missing",
                    [NSFilePathErrorKey: file.path])
            }
        default:
            return column
        }
    }

    func fileURL(forColumnValue column: Data) -> URL? {
        guard column.first == 0x02, let directory else { return nil }
        let nameBytes = column.dropFirst().prefix { $0 != 0 }
        guard let name = String(data: Data(nameBytes), encoding: .utf8), !name.isEmpty else { return nil }
        return directory.appendingPathComponent(name)
    }
}
