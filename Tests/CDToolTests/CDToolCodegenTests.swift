@testable import CDToolCore
import OpenCoreData
import Testing

/// `cdtool codegen`: the generated classes match the golden files in `Golden/`, which
/// this test target compiles, so the generator's output is known to build.
///
/// After changing the generator on purpose, run the suite with
/// `CDTOOL_UPDATE_GOLDEN=1 swift test --filter CDToolCodegenTests` and review the diff.
@Suite struct CDToolCodegenTests {
    static let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Golden")

    /// The fixture model with the attributes only code generation cares about: a
    /// transformable with a custom class, a keyword name, and a number without scalar type.
    static func model() -> NSManagedObjectModel {
        let model = CDToolFixture.model()
        let note = model.entitiesByName["Note"]!
        let extras = CDToolFixture.attribute("extras", .transformableAttributeType)
        extras.attributeValueClassName = "NSDictionary"
        note.properties += [
            extras, CDToolFixture.attribute("default", .stringAttributeType),
            CDToolFixture.attribute("rating", .floatAttributeType),
        ]
        for entity in model.entities {
            for attribute in entity.properties.compactMap({ $0 as? NSAttributeDescription })
            where attribute.entity === entity {
                attribute.usesScalarValueType = attribute.name != "rating"
            }
        }
        return model
    }

    static func generator() -> CodeGenerator {
        CodeGenerator()
    }

    @Test func generatedFilesMatchTheCompiledGoldenFiles() throws {
        let files = try Self.generator().files(for: Self.model())
        if ProcessInfo.processInfo.environment["CDTOOL_UPDATE_GOLDEN"] != nil {
            try CodeGenerator.write(files, to: Self.goldenDirectory)
        }
        #expect(
            files.map(\.name) == [
                "Family+CoreDataClass.swift", "Family+CoreDataProperties.swift",
                "Note+CoreDataClass.swift", "Note+CoreDataProperties.swift",
                "Person+CoreDataClass.swift", "Person+CoreDataProperties.swift",
                "Student+CoreDataClass.swift", "Student+CoreDataProperties.swift",
                "Tag+CoreDataClass.swift", "Tag+CoreDataProperties.swift",
            ])
        let golden = try FileManager.default.contentsOfDirectory(atPath: Self.goldenDirectory.path).sorted()
        #expect(golden == files.map(\.name))
        for file in files {
            let expected = try String(
                contentsOf: Self.goldenDirectory.appendingPathComponent(file.name), encoding: .utf8)
            #expect(file.contents == expected, "\(file.name) differs from its golden file")
        }
    }

    @Test func generatedClassesWorkAsManagedObjects() throws {
        let model = Self.model()
        for entity in model.entities { entity.managedObjectClassName = "CDToolTests.\(entity.name!)" }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let family = Family(context: context)
            family.name = "Smith"
            let student = Student(context: context)
            student.name = "Dee"
            student.age = 19
            student.school = "MIT"
            student.family = family
            let tag = Tag(context: context)
            tag.label = "red"
            student.addToTags(tag)
            let note = Note(context: context)
            note.default = "text"
            note.rating = 4.5
            note.owner = student
            try context.save()
            context.reset()
            let request: NSFetchRequest<Student> = Student.fetchRequest()
            let fetched = try context.fetch(request)
            #expect(fetched.map(\.name) == ["Dee"])
            #expect(fetched.first?.age == 19)
            #expect(fetched.first?.family?.name == "Smith")
            #expect((fetched.first?.tags?.firstObject as? Tag)?.label == "red")
            let notes = try context.fetch(Note.fetchRequest())
            #expect(notes.first?.rating == 4.5)
            #expect(notes.first?.default == "text")
        }
    }

    @Test func singleFileHoldsEveryEntityOnce() throws {
        let generator = Self.generator()
        let model = Self.model()
        let single = try generator.singleFile(named: "Fixture+CoreDataClasses.swift", for: model)
        #expect(single.name == "Fixture+CoreDataClasses.swift")
        #expect(single.contents.components(separatedBy: "import OpenCoreData").count == 2)
        for file in try generator.files(for: model) {
            let body = file.contents.components(separatedBy: "import OpenCoreData\n\n")[1]
            #expect(single.contents.components(separatedBy: body).count == 2, "\(file.name)")
        }
    }

    @Test func namesThatAreNotSwiftIdentifiersAreRefusedNotWrittenAsCode() throws {
        func refusal(_ change: (NSManagedObjectModel) -> Void) -> String? {
            let model = Self.model()
            change(model)
            return #expect(throws: CDToolError.self) { try Self.generator().files(for: model) }?.description
        }
        let injected = "Evil: NSManagedObject {} func pwn() { print(1) } class Other"
        #expect(
            refusal { $0.entitiesByName["Tag"]!.managedObjectClassName = injected }
                == "entity 'Tag': class name '\(injected)' is not a Swift identifier (or a module-qualified one)")
        #expect(
            refusal { $0.entitiesByName["Tag"]!.managedObjectClassName = "MyApp.class" }?.contains(
                "class name 'MyApp.class'") == true)
        #expect(
            refusal { $0.entitiesByName["Tag"]!.properties.first!.name = "label: Int\n    func pwn() {}" }?.hasPrefix(
                "entity 'Tag': property name 'label: Int") == true)
        #expect(
            refusal { $0.entitiesByName["Tag"]!.name = "Tag\"); func pwn() {} //" }?.contains(
                "its name is not a Swift identifier") == true)
        #expect(
            refusal {
                ($0.entitiesByName["Note"]!.propertiesByName["extras"] as! NSAttributeDescription)
                    .attributeValueClassName = "NSDictionary? { nil }; func pwn() {}"
            }
                == "entity 'Note': attribute 'extras' has custom class 'NSDictionary? { nil }; func pwn() {}', which is not a Swift type name"
        )

        let model = Self.model()
        model.entitiesByName["Tag"]!.managedObjectClassName = "MyApp.Étiquette"
        (model.entitiesByName["Note"]!.propertiesByName["extras"] as! NSAttributeDescription).attributeValueClassName =
            "[String: [Int]]"
        let files = try Self.generator().files(for: model)
        #expect(
            files.contains { $0.name == "Étiquette+CoreDataClass.swift" },
            "Unicode identifiers and collection types pass")
        #expect(files.contains { $0.contents.contains("@Managed public var extras: [String: [Int]]?") })
        for name in ["", "..", "a/b.swift", "X.swift\nfunc pwn() {}"] {
            #expect(throws: CDToolError.self) { try Self.generator().singleFile(named: name, for: Self.model()) }
        }
    }

    @Test(.timeLimit(.minutes(1))) func writingAHugeModelSkipsUnchangedFiles() throws {
        // 10,000 entities took over 30 s: every one of 20,000 files was synced to disk.
        let files = try Self.generator().files(for: CDToolDumpTests.hugeModel(entities: 2_000))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("codegen-\(UUID().uuidString)")
        let start = Date()
        try CodeGenerator.write(files, to: directory)
        #expect(Date().timeIntervalSince(start) < 20)
        let first = directory.appendingPathComponent(files[0].name)
        let past = Date(timeIntervalSince1970: 1_000_000_000)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: first.path)
        var changed = files
        changed[1] = CodeGenerator.File(name: files[1].name, contents: files[1].contents + "// changed\n")
        try CodeGenerator.write(changed, to: directory)
        #expect(
            try FileManager.default.attributesOfItem(atPath: first.path)[.modificationDate] as? Date == past,
            "an unchanged file is left alone")
        #expect(
            try String(contentsOf: directory.appendingPathComponent(files[1].name), encoding: .utf8)
                == changed[1].contents)
    }

    @Test func classNamesDropModulesAndPlainManagedObject() {
        let entity = NSEntityDescription()
        entity.name = "Item"
        #expect(CodeGenerator.className(of: entity) == "Item")
        entity.managedObjectClassName = "MyApp.CatalogItem"
        #expect(CodeGenerator.className(of: entity) == "CatalogItem")
        #expect(CodeGenerator.identifier("class") == "`class`")
        #expect(CodeGenerator.identifier("title") == "title")
    }
}
