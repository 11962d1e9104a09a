import ArgumentParser
import CDToolCore
import OpenCoreData

/// `cdtool migrate <store> --model <model> [--mapping <mapping>]`: migrates a store to a model's current version.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract:
            "Migrate an SQLite store to a model's current version (automatic lightweight migration, as an app's container does, or by a mapping model).",
        discussion: """
            The version that wrote the store is found by its version hashes among the model bundle's versions, \
            else in the model Core Data cached in the store. The store is migrated in place, in one transaction: \
            if the migration fails or is interrupted, the store is left as it was. With --mapping, the mapping \
            model (Xcode's .xcmappingmodel or a compiled .cdm) must map that version to the current one; its \
            objects are migrated one by one into a new store that then replaces the old one.

            A migration that would delete rows is refused, naming the entities and row counts: rows of an entity \
            the model does not have (matched by name or renaming identifier) unless the mapping model removes it \
            with a Remove entity mapping, and rows whose entity number is no entity of the store's model. \
            --allow-data-loss lets it delete them.
            """
    )

    @Argument(help: "The SQLite store file.")
    var store: String

    @Option(help: "The model: a .xcdatamodeld bundle (its current version is the destination) or one version.")
    var model: String

    @Option(
        help:
            "A mapping model (.xcmappingmodel or .cdm) from the store's version to the current one, for changes lightweight migration cannot infer."
    )
    var mapping: String?

    @Flag(
        help:
            "Let the migration delete rows it has no destination for (entities the model does not have, rows of unknown entities) instead of refusing."
    )
    var allowDataLoss = false

    func run() throws {
        try CommandSupport.run {
            let bar = ProgressBar()
            let outcome = try StoreMigration.migrate(
                storeAt: CommandSupport.url(store), modelAt: CommandSupport.url(model),
                mappingAt: mapping.map(CommandSupport.url), allowingDataLoss: allowDataLoss
            ) { bar.draw($0) }
            bar.finish()
            CommandSupport.output(outcome.summary(store: CommandSupport.url(store)) + "\n")
        }
    }
}

/// A one-line progress bar on stderr, redrawn in place.
final class ProgressBar {
    private var drawn = -1

    func draw(_ fraction: Double) {
        let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        guard percent != drawn else { return }
        drawn = percent
        let filled = percent * 30 / 100
        FileHandle.standardError.write(
            Data(
                "\rmigrating [\(String(repeating: "#", count: filled))\(String(repeating: ".", count: 30 - filled))] \(percent)%"
                    .utf8))
    }

    func finish() {
        if drawn >= 0 { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
