import OpenCoreData

/// `cdtool codegen`: Swift classes for a model's entities, as Xcode's "Create
/// NSManagedObject Subclass" writes them, with `@Managed` in place of `@NSManaged`.
///
/// Per entity a class file (`<Class>+CoreDataClass.swift`: the empty subclass, to
/// extend by hand) and a properties file (`<Class>+CoreDataProperties.swift`: a typed
/// `fetchRequest()` and one `@Managed` property per attribute and relationship, to
/// regenerate when the model changes). Types follow Xcode: optional `String`, `Date`,
/// `Data`, `UUID`, `URL`; scalars for numbers and Booleans when the attribute's
/// `usesScalarValueType` is set, else `NSNumber?`; `NSDecimalNumber?`; to-manys as `NSSet?`
/// or `NSOrderedSet?`, whose `addTo…`/`removeFrom…` accessors `@Managed` writes. A fetched
/// property becomes a read-only `[NSManagedObject]?` read through key-value coding, which
/// runs its fetch (Xcode declares it `@NSManaged`; `@Managed` stores values, not fetches).
public struct CodeGenerator {
    /// One generated source file.
    public struct File: Equatable, Sendable {
        /// The file name, e.g. `Person+CoreDataClass.swift`.
        public let name: String
        /// Its Swift source.
        public let contents: String
    }

    /// Whether to follow each entity's Codegen setting (`codeGenerationType`), as Xcode's
    /// build-time codegen does: `"class"` gets both files, `"category"` only the
    /// properties, Manual/None nothing. Off, every entity gets both ("Create
    /// NSManagedObject Subclass").
    public var followsCodegenSetting = false

    /// A generator that writes both files for every entity.
    public init() {}

    /// The class and properties files of every entity, in entity-name order.
    ///
    /// - Throws: A ``CDToolError`` naming the entity when a name the source would hold as
    ///   code (a class, property or custom value class name) is not a Swift identifier.
    public func files(for model: NSManagedObjectModel) throws -> [File] {
        let entities = try checkedEntities(of: model)
        return entities.flatMap { entity -> [File] in
            let name = Self.className(of: entity)
            let (wantsClass, wantsProperties) = parts(for: entity)
            var files: [File] = []
            if wantsClass {
                files.append(
                    File(
                        name: "\(name)+CoreDataClass.swift",
                        contents: Self.header("\(name)+CoreDataClass.swift") + classDeclaration(entity)))
            }
            if wantsProperties {
                files.append(
                    File(
                        name: "\(name)+CoreDataProperties.swift",
                        contents: Self.header("\(name)+CoreDataProperties.swift") + propertiesExtension(entity)))
            }
            return files
        }
    }

    /// Every entity's class and properties in one file named `name`: what the build
    /// plugin generates, since a build tool must name its outputs before reading the model.
    ///
    /// - Throws: A ``CDToolError`` when `name` is not a plain file name, or, naming the
    ///   entity, when a name the source would hold as code is not a Swift identifier.
    public func singleFile(named name: String, for model: NSManagedObjectModel) throws -> File {
        // The name goes into the file's header comment, and is joined to the output folder.
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw CDToolError("the single file name '\(name)' is not a plain file name")
        }
        let bodies = try checkedEntities(of: model).compactMap { entity -> String? in
            let (wantsClass, wantsProperties) = parts(for: entity)
            let parts =
                (wantsClass ? [classDeclaration(entity)] : []) + (wantsProperties ? [propertiesExtension(entity)] : [])
            return parts.isEmpty ? nil : parts.joined(separator: "\n")
        }
        return File(name: name, contents: Self.header(name) + bodies.joined(separator: "\n"))
    }

    /// Which of the two files an entity gets.
    private func parts(for entity: NSEntityDescription) -> (class: Bool, properties: Bool) {
        guard followsCodegenSetting else { return (true, true) }
        switch entity.codeGenerationType {
        case "class": return (true, true)
        case "category": return (false, true)
        default: return (false, false)
        }
    }

    /// Writes `files` into `directory` (created if needed), replacing files of the same
    /// names; a file whose contents are already these is left alone (and keeps its date).
    public static func write(_ files: [File], to directory: URL) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for file in files {
                let url = directory.appendingPathComponent(file.name)
                let data = Data(file.contents.utf8)
                if let existing = try? Data(contentsOf: url), existing == data { continue }
                try writeWithoutSync(data, to: url)
            }
        } catch {
            throw CDToolError("can't write to \(directory.path): \(CDToolError(wrapping: error).description)")
        }
    }

    /// Writes `data` to the file at `url`, replacing it. Foundation's `Data.write` syncs
    /// every file to disk, which made the 20,000 files of a large model take a minute;
    /// a file cut short by a crash differs from its contents and is written again next time.
    private static func writeWithoutSync(_ data: Data, to url: URL) throws {
        guard let file = fopen(url.path, "wb") else {
            throw CDToolError("can't create \(url.lastPathComponent): \(String(cString: strerror(errno)))")
        }
        let written = data.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file) == 0
        guard written == data.count, closed else {
            throw CDToolError("can't write \(url.lastPathComponent): \(String(cString: strerror(errno)))")
        }
    }

    // MARK: Declarations

    /// The entities in name order, once every name the generated source holds as code is
    /// known to be a Swift identifier: a name is written out as it is, so a class name such
    /// as `X {} func f() {} class Y` would otherwise become code in the user's target.
    private func checkedEntities(of model: NSManagedObjectModel) throws -> [NSEntityDescription] {
        let entities = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        for entity in entities {
            let entityName = entity.name ?? ""
            guard Self.isSwiftIdentifier(entityName) else {
                throw CDToolError(
                    "entity '\(entityName)': its name is not a Swift identifier, so no class can be generated for it")
            }
            let declared = entity.managedObjectClassName ?? ""
            if !declared.isEmpty, declared != "NSManagedObject" {
                let parts = declared.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                guard parts.allSatisfy(Self.isSwiftIdentifier), let last = parts.last, !Self.keywords.contains(last)
                else {
                    throw CDToolError(
                        "entity '\(entityName)': class name '\(declared)' is not a Swift identifier (or a module-qualified one)"
                    )
                }
            }
            for property in entity.properties where property.entity === entity {
                guard Self.isSwiftIdentifier(property.name) else {
                    throw CDToolError(
                        "entity '\(entityName)': property name '\(property.name)' is not a Swift identifier")
                }
                if let attribute = property as? NSAttributeDescription,
                    attribute.attributeType == .transformableAttributeType,
                    let custom = attribute.attributeValueClassName, !custom.isEmpty, !Self.isSwiftTypeName(custom)
                {
                    throw CDToolError(
                        "entity '\(entityName)': attribute '\(property.name)' has custom class '\(custom)', which is not a Swift type name"
                    )
                }
            }
        }
        return entities
    }

    private static func header(_ fileName: String) -> String {
        """
        //
        //  \(fileName)
        //
        //  Generated by cdtool codegen from a Core Data model; regenerate it rather than edit it.
        //

        import OpenCoreData


        """
    }

    private func classDeclaration(_ entity: NSEntityDescription) -> String {
        let name = Self.className(of: entity)
        let parent = entity.superentity.map(Self.className) ?? "NSManagedObject"
        return """
            public class \(name): \(parent) {

            }

            """
    }

    private func propertiesExtension(_ entity: NSEntityDescription) -> String {
        let name = Self.className(of: entity)
        var lines = [
            "extension \(name) {",
            "",
            "    @nonobjc public class func fetchRequest() -> NSFetchRequest<\(name)> {",
            "        NSFetchRequest<\(name)>(entityName: \"\(Self.escaped(entity.name ?? name))\")",
            "    }",
            "",
        ]
        let own = entity.properties.filter { $0.entity === entity }.sorted { $0.name < $1.name }
        for property in own {
            if property is NSFetchedPropertyDescription {
                let key = Self.escaped(property.name)
                lines.append(
                    "    public var \(Self.identifier(property.name)): [NSManagedObject]? { value(forKey: \"\(key)\") as? [NSManagedObject] }"
                )
            } else if let type = swiftType(of: property) {
                lines.append("    @Managed public var \(Self.identifier(property.name)): \(type)")
            } else {
                lines.append(
                    "    // '\(property.name)' has no generated property: its type has no Swift counterpart here.")
            }
        }
        lines += ["", "}", ""]
        return lines.joined(separator: "\n")
    }

    /// The declared Swift type of a property, as Xcode chooses it.
    func swiftType(of property: NSPropertyDescription) -> String? {
        if let relationship = property as? NSRelationshipDescription {
            if relationship.isToMany { return relationship.isOrdered ? "NSOrderedSet?" : "NSSet?" }
            return (relationship.destinationEntity.map(Self.className) ?? "NSManagedObject") + "?"
        }
        guard let attribute = property as? NSAttributeDescription else { return nil }
        let scalar = attribute.usesScalarValueType
        switch attribute.attributeType {
        case .integer16AttributeType: return scalar ? "Int16" : "NSNumber?"
        case .integer32AttributeType: return scalar ? "Int32" : "NSNumber?"
        case .integer64AttributeType: return scalar ? "Int64" : "NSNumber?"
        case .doubleAttributeType: return scalar ? "Double" : "NSNumber?"
        case .floatAttributeType: return scalar ? "Float" : "NSNumber?"
        case .booleanAttributeType: return scalar ? "Bool" : "NSNumber?"
        case .decimalAttributeType: return "NSDecimalNumber?"
        case .stringAttributeType: return "String?"
        case .dateAttributeType: return "Date?"
        case .binaryDataAttributeType: return "Data?"
        case .UUIDAttributeType: return "UUID?"
        case .URIAttributeType: return "URL?"
        case .objectIDAttributeType: return "NSManagedObjectID?"
        case .transformableAttributeType:
            // Xcode uses the attribute's custom class, else NSObject.
            let custom = attribute.attributeValueClassName.map(Self.unqualified)
            return (custom.flatMap { $0.isEmpty ? nil : $0 } ?? "NSObject") + "?"
        case .compositeAttributeType:
            // Element name → value, as Core Data's generated classes declare composites.
            return "[String: Any]?"
        case .undefinedAttributeType:
            return nil
        }
    }

    // MARK: Names

    /// The Swift class of an entity: its class name without module prefix, or the entity
    /// name when the entity uses plain `NSManagedObject`.
    static func className(of entity: NSEntityDescription) -> String {
        let declared = unqualified(entity.managedObjectClassName ?? "")
        if declared.isEmpty || declared == "NSManagedObject" { return identifier(entity.name ?? "Entity") }
        return declared
    }

    private static func unqualified(_ name: String) -> String {
        String(name.split(separator: ".").last ?? "")
    }

    /// Whether `name` is a Swift identifier (keywords included: they are written in
    /// backticks): a letter or underscore, then letters, digits and underscores, where
    /// letters and digits are Unicode's identifier characters.
    static func isSwiftIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isXIDStart else { return false }
        return name.unicodeScalars.allSatisfy { $0.properties.isXIDContinue }
    }

    /// Whether `name` can stand as a type where a transformable's custom class goes:
    /// identifiers joined by `.`, with the brackets, colons, commas, angle brackets, question marks and
    /// spaces of collection, generic and optional types (`[String: Int]`), nothing that could open code.
    static func isSwiftTypeName(_ name: String) -> Bool {
        var identifier = ""
        for character in name + " " {
            if "[]<>:,?. ".contains(character) {
                guard identifier.isEmpty || isSwiftIdentifier(identifier) else { return false }
                identifier = ""
            } else {
                identifier.append(character)
            }
        }
        return name.contains { !" []<>:,?.".contains($0) }
    }

    /// A name usable as a Swift identifier: keywords in backticks.
    static func identifier(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    private static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self",
        "super", "throws", "true", "try",
    ]
}
