#if canImport(FoundationXML)
internal import FoundationXML
#endif

/// One element of a model file, with the line it starts on (for error messages).
///
/// The loader reads the whole tree before building anything, so entities can name
/// parents, destinations and inverses that come later in the file.
package final class ModelXMLElement {
    package let name: String
    package let attributes: [String: String]
    package let line: Int
    fileprivate(set) var children: [ModelXMLElement] = []
    /// The text directly inside the element (Xcode's model files keep everything in
    /// attributes; mapping model files keep values as text).
    fileprivate(set) var text = ""

    package init(name: String, attributes: [String: String], line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }

    package subscript(attribute: String) -> String? { attributes[attribute] }

    /// The children named `name`, in file order.
    package func children(named name: String) -> [ModelXMLElement] { children.filter { $0.name == name } }

    /// How errors show the element: its tag with the attribute that identifies it.
    package var label: String {
        for key in ["name", "key", "value", "property"] {
            if let value = attributes[key] { return "<\(name) \(key)=\"\(value)\">" }
        }
        return "<\(name)>"
    }
}

/// Reads a model file's XML into a ``ModelXMLElement`` tree with FoundationXML's
/// `XMLParser` (libxml2 on Linux).
package enum ModelXMLDocument {
    /// Deeper nesting is refused. Xcode's model and mapping files nest a handful of
    /// levels; a hostile file nested tens of thousands deep would otherwise overflow the
    /// stack when the tree of elements is released (each element frees its children).
    package static let maximumDepth = 256

    /// The root element of `data`; malformed XML throws with the parser's line and reason.
    /// `allowsExternalDoctype` accepts a `<!DOCTYPE … SYSTEM "…">` line (Xcode's mapping
    /// model files name Core Data's DTD); the DTD is never read.
    package static func parse(
        _ data: Data, source: ModelFileSource, allowsExternalDoctype: Bool = false
    ) throws -> ModelXMLElement {
        try checkPlainUTF8(data, source: source, allowsExternalDoctype: allowsExternalDoctype)
        let parser = XMLParser(data: data)
        let builder = TreeBuilder()
        parser.delegate = builder
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        let succeeded = parser.parse()
        // On Linux `parse()` can report success although the parser recorded an error.
        if let failure = builder.failure ?? parser.parserError.map({ (parser.lineNumber, TreeBuilder.malformed($0)) }) {
            throw ModelLoadingError(source: source, line: failure.line, element: nil, reason: failure.reason)
        }
        guard succeeded else {
            throw ModelLoadingError(
                source: source, line: parser.lineNumber, element: nil, reason: "is not well-formed XML")
        }
        guard let root = builder.root else {
            throw ModelLoadingError(source: source, line: nil, element: nil, reason: "holds no XML element")
        }
        return root
    }

    /// Xcode writes model files as UTF-8 without a DOCTYPE or processing instructions.
    /// Anything else is refused before parsing: FoundationXML on Linux traps on names or
    /// values that are not valid UTF-8, and a DOCTYPE could declare entities that expand
    /// without bound.
    private static func checkPlainUTF8(_ data: Data, source: ModelFileSource, allowsExternalDoctype: Bool) throws {
        func refuse(_ reason: String) -> ModelLoadingError {
            ModelLoadingError(source: source, line: nil, element: nil, reason: reason)
        }
        guard let decoded = String(data: data, encoding: .utf8) else { throw refuse("is not UTF-8 text") }
        // A byte-order mark before the declaration does not make the declaration something else.
        let text = decoded.hasPrefix("\u{FEFF}") ? String(decoded.dropFirst()) : decoded
        if text.contains("<!ENTITY") {
            throw refuse("has an entity declaration, which model files do not have")
        }
        if let doctype = text.range(of: "<!DOCTYPE") {
            // Only a reference to an external DTD: an internal subset could declare entities.
            let declaration = text[doctype.upperBound...].prefix { $0 != ">" }
            guard allowsExternalDoctype, !declaration.contains("[") else {
                throw refuse("has a DOCTYPE declaration, which model files do not have")
            }
        }
        // The XML declaration is the one processing instruction model files have. FoundationXML
        // on Linux reads one without data (`<?x?>`) through a null pointer, a crash.
        // Any `<?` past the declaration's own is refused, even where the declaration is cut
        // short (`<?xml a="b><x<?y?>`): libxml2 then reads the later one as an instruction.
        let isDeclaration =
            text.hasPrefix("<?xml")
            && text.dropFirst(5).first.map({ $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }) == true
        if (isDeclaration ? text.dropFirst(2) : text[...]).contains("<?") {
            throw refuse("has a processing instruction, which model files do not have")
        }
        guard text.hasPrefix("<?xml"), let end = text.range(of: "?>") else { return }
        let declaration = text[..<end.lowerBound]
        guard let encoding = declaration.range(of: "encoding") else { return }
        let value = declaration[encoding.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
            .prefix { $0 != "\"" && $0 != "'" && $0 != " " }
        guard value.lowercased() == "utf-8" || value.lowercased() == "utf8" else {
            throw refuse("declares encoding \"\(value)\"; model files are UTF-8")
        }
    }

    /// Collects elements and their text as the parser reports them; comments are ignored.
    private final class TreeBuilder: NSObject, XMLParserDelegate {
        package var root: ModelXMLElement?
        /// The first problem, as the reason of the error to throw.
        package var failure: (line: Int, reason: String)?
        private var stack: [ModelXMLElement] = []

        package func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            guard failure == nil else { return }
            guard stack.count < ModelXMLDocument.maximumDepth else {
                failure = (
                    parser.lineNumber,
                    "nests elements more than \(ModelXMLDocument.maximumDepth) levels deep, which model files do not"
                )
                parser.abortParsing()
                return
            }
            let element = ModelXMLElement(name: elementName, attributes: attributeDict, line: parser.lineNumber)
            if let parent = stack.last {
                parent.children.append(element)
            } else if root == nil {
                root = element
            }
            stack.append(element)
        }

        package func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard failure == nil else { return }
            stack.last?.text += string
        }

        package func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
        ) {
            guard failure == nil else { return }
            _ = stack.popLast()
        }

        package func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            if failure == nil { failure = (parser.lineNumber, Self.malformed(parseError)) }
        }

        package func parser(_ parser: XMLParser, validationErrorOccurred validationError: Error) {
            if failure == nil { failure = (parser.lineNumber, Self.malformed(validationError)) }
        }

        /// The reason given for an error the XML parser reports.
        package static func malformed(_ error: Error) -> String {
            "is not well-formed XML (\(error.localizedDescription))"
        }
    }
}
