import OpenCoreData
import Testing
import OpenCoreDataStoreTestSupport

/// The to-many accessors `@Managed` generates, called at run time: order, inverses, and
/// what a save keeps.
@Suite struct GeneratedAccessorTests {
    let model = ModelBuilder.notesModel()

    /// An index set from literal indexes (the indexed accessors take `NSIndexSet`, as Xcode's do).
    private func indexes(_ values: Int...) -> NSIndexSet {
        let set = NSMutableIndexSet()
        for value in values { set.add(value) }
        return set
    }

    @Test func orderedAccessorsKeepOrderAndInverses() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let playlist = Playlist(context: context)
            let songs = Dictionary(
                uniqueKeysWithValues: ["a", "b", "c", "d", "e", "f"].map { title in
                    let song = Song(context: context)
                    song.title = title
                    return (title, song)
                })
            func titles() -> [String] { playlist.songs?.array.compactMap { ($0 as? Song)?.title } ?? [] }
            func owner(_ title: String) -> Playlist? { songs[title]!.playlist }

            for title in ["a", "b", "c"] { playlist.addToSongs(songs[title]!) }
            #expect(titles() == ["a", "b", "c"])
            playlist.insertIntoSongs(songs["d"]!, at: 1)
            #expect(titles() == ["a", "d", "b", "c"])
            #expect(owner("d") === playlist)
            playlist.removeFromSongs(at: 0)
            #expect(titles() == ["d", "b", "c"])
            #expect(owner("a") == nil, "removing by index clears the inverse")

            // Each index is where the object ends up, as NSMutableOrderedSet inserts them.
            playlist.insertIntoSongs([songs["e"]!, songs["f"]!], at: indexes(0, 2))
            #expect(titles() == ["e", "d", "f", "b", "c"])
            #expect(owner("e") === playlist && owner("f") === playlist)
            playlist.removeFromSongs(at: indexes(1, 3))
            #expect(titles() == ["e", "f", "c"])
            #expect(owner("d") == nil && owner("b") == nil)

            playlist.replaceSongs(at: 1, with: songs["a"]!)
            #expect(titles() == ["e", "a", "c"])
            #expect(owner("f") == nil && owner("a") === playlist)
            playlist.replaceSongs(at: indexes(0, 2), with: [songs["b"]!, songs["d"]!])
            #expect(titles() == ["b", "a", "d"])
            #expect(owner("e") == nil && owner("c") == nil && owner("b") === playlist)

            playlist.addToSongs(NSOrderedSet(array: [songs["e"]!, songs["c"]!]))
            #expect(titles() == ["b", "a", "d", "e", "c"])
            playlist.removeFromSongs(NSOrderedSet(array: [songs["a"]!, songs["e"]!]))
            #expect(titles() == ["b", "d", "c"])
            #expect(owner("a") == nil && owner("e") == nil)
            playlist.removeFromSongs(songs["b"]!)
            #expect(titles() == ["d", "c"])
            #expect(owner("b") == nil)
            try context.save()
        }
        let reopened = try makeContext(model, url: url)
        try reopened.performAndWait {
            let playlist = try #require(try reopened.fetch(Playlist.fetchRequest()).first)
            #expect(playlist.songs?.array.compactMap { ($0 as? Song)?.title } == ["d", "c"])
            let orphans = Song.fetchRequest()
            orphans.predicate = NSPredicate(format: "playlist == nil")
            let orphanTitles = try reopened.fetch(orphans).compactMap(\.title).sorted()
            #expect(orphanTitles == ["a", "b", "e", "f"])
        }
    }

    @Test func unorderedSetAccessorsMaintainInverses() throws {
        let context = try makeContext(model)
        try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "Sets"
            let first = Note(context: context), second = Note(context: context), third = Note(context: context)
            notebook.addToNotes(NSSet(array: [first, second, third]))
            #expect(notebook.notes?.count == 3)
            #expect(first.notebook === notebook && second.notebook === notebook && third.notebook === notebook)
            notebook.removeFromNotes(NSSet(array: [first, third]))
            #expect(notebook.notes == NSSet(array: [second]))
            #expect(first.notebook == nil && third.notebook == nil)
            try context.save()
            let request = Note.fetchRequest()
            request.predicate = NSPredicate(format: "notebook != nil")
            let reader = siblingContext(of: context)
            let stored = try reader.performAndWait { try reader.count(for: request) }
            #expect(stored == 1, "only the note left in the notebook was saved with it")
        }
    }
}
