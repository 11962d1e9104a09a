/// Reads an element's XML attributes as the values Xcode writes (`YES`/`NO`, numbers,
/// names), turning anything unreadable into a ``ModelLoadingError`` that names the
/// file, line and element.
package struct ModelElementValues {
    package let source: ModelFileSource
    package let element: ModelXMLElement
    /// Where the element sits, for messages: `in entity Item`.
    package let scope: String?

    package init(_ element: ModelXMLElement, source: ModelFileSource, scope: String? = nil) {
        self.source = source
        self.element = element
        self.scope = scope
    }

    /// An error about this element: `<attribute name="age"> in entity Person <reason>`.
    package func error(_ reason: String) -> ModelLoadingError {
        ModelLoadingError(
            source: source, line: element.line, element: element.label,
            reason: scope.map { "\($0) \(reason)" } ?? reason)
    }

    /// The values reader for a child element, in the same scope.
    package func child(_ child: ModelXMLElement, scope: String? = nil) -> ModelElementValues {
        ModelElementValues(child, source: source, scope: scope ?? self.scope)
    }

    package subscript(key: String) -> String? { element[key] }

    /// A value the element must have.
    package func required(_ key: String) throws -> String {
        guard let value = element[key], !value.isEmpty else { throw error("has no \(key)") }
        return value
    }

    /// A name that becomes part of SQL and Swift code: letters, digits and underscores,
    /// not starting with a digit (as Xcode's model editor requires).
    package func identifier(_ key: String = "name") throws -> String {
        let value = try required(key)
        let valid = value.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil))
        }
        guard valid, let first = value.unicodeScalars.first, first.properties.numericType == nil else {
            throw error(
                "has \(key) '\(value)', which is not a valid name (letters, digits and underscores, not starting with a digit)"
            )
        }
        return value
    }

    /// A `YES`/`NO` flag; `defaultValue` when absent.
    package func flag(_ key: String, default defaultValue: Bool = false) throws -> Bool {
        guard let value = element[key] else { return defaultValue }
        switch value.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw error("has \(key)=\"\(value)\", which is not YES or NO")
        }
    }

    /// A whole number of at least `minimum`; `nil` when absent.
    package func integer(_ key: String, minimum: Int = 0) throws -> Int? {
        guard let value = element[key] else { return nil }
        guard let number = Int(value.trimmingCharacters(in: .whitespaces)), number >= minimum else {
            throw error("has \(key)=\"\(value)\", which is not a whole number of at least \(minimum)")
        }
        return number
    }

    /// A finite floating-point number; `nil` when absent.
    package func double(_ key: String) throws -> Double? {
        guard let value = element[key] else { return nil }
        guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number.isFinite else {
            throw error("has \(key)=\"\(value)\", which is not a number")
        }
        return number
    }

    /// A predicate in Core Data's format language; `nil` when absent or empty.
    package func predicate(_ key: String) throws -> NSPredicate? {
        try parsed(key) { try NSPredicate.parse(format: $0) }
    }

    /// An expression in Core Data's format language; `nil` when absent or empty.
    package func expression(_ key: String) throws -> NSExpression? {
        try parsed(key) { try NSExpression.parse(format: $0) }
    }

    private func parsed<T>(_ key: String, _ parse: (String) throws -> T) throws -> T? {
        guard let format = element[key], !format.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        do {
            return try parse(format)
        } catch {
            throw self.error("has \(key) \"\(format)\" that does not parse (\(error))")
        }
    }

    /// Rejects child elements other than `allowed`, which Xcode never writes there.
    package func checkChildren(_ allowed: Set<String>) throws {
        if let unknown = element.children.first(where: { !allowed.contains($0.name) }) {
            throw child(unknown).error("is not an element Core Data models have inside <\(element.name)>")
        }
    }

    /// The `<userInfo>` entries of the element (`<entry key="…" value="…"/>`); `nil` when there are none.
    package func userInfo() throws -> [AnyHashable: Any]? {
        var info: [AnyHashable: Any] = [:]
        for block in element.children(named: "userInfo") {
            let blockValues = child(block)
            try blockValues.checkChildren(["entry"])
            for entry in block.children {
                let entryValues = child(entry)
                info[try entryValues.required("key")] = entry["value"] ?? ""
            }
        }
        return info.isEmpty ? nil : info
    }
}
