import Foundation
import Testing

/// Virtual Tourist (seed 000, part A): pins, photos downloaded from the local photo service the
/// app starts on the loopback interface, kept as external binary data across restarts.
@Suite struct VirtualTouristExampleTests {
    /// The photo ids of an album listing ("1. http://127.0.0.1:PORT/image/ID (N bytes)").
    static func ids(_ run: ExampleProcess.Run) -> [String] {
        run.lines.compactMap { line in
            guard let range = line.range(of: "/image/"), let end = line.range(of: " (") else { return nil }
            return String(line[range.upperBound..<end.lowerBound])
        }
    }

    /// Files of external binary data the store keeps.
    static func externalFiles(_ app: ExampleProcess) -> Int {
        let folder = app.home.appendingPathComponent("data/VirtualTourist/.VirtualTourist_SUPPORT/_EXTERNAL_DATA")
        return (try? FileManager.default.contentsOfDirectory(atPath: folder.path).count) ?? 0
    }

    @Test func anAlbumIsDownloadedOnceKeptAndRenewed() throws {
        let app = ExampleProcess("VirtualTourist")
        #expect(try app.run("drop", "48.8566", "2.3522").lines == ["Dropped pin 1 at (48.8566, 2.3522)."])
        try app.run("drop", "35.68", "139.69")
        let first = try app.run("album", "1")
        #expect(first.status == 0)
        #expect(
            first.lines.filter { $0.hasPrefix("downloaded") } == (1...6).map { "downloaded \($0)/6" },
            "progress on the download")
        #expect(Self.ids(first) == (1...6).map { "4886_235_1_\($0)" }, "photos for the pin's place")
        #expect(first.lines.last?.hasSuffix("(200000 bytes)") == true)
        #expect(Self.externalFiles(app) == 6, "each photo in a file of its own")

        // A restart: the album is in the store, nothing is downloaded again.
        let again = try app.run("album", "1", "--service", "http://127.0.0.1:1")
        #expect(again.status == 0, "\(again.output)")
        #expect(!again.output.contains("downloaded"))
        #expect(Self.ids(again) == Self.ids(first))

        #expect(
            Self.ids(try app.run("remove", "1", "2", "4")) == [
                "4886_235_1_1", "4886_235_1_3", "4886_235_1_5", "4886_235_1_6",
            ])
        #expect(Self.externalFiles(app) == 4)
        #expect(try app.run().lines == ["1. (48.8566, 2.3522): 4 photos", "2. (35.68, 139.69): 0 photos"])

        let renewed = try app.run("new-collection", "1", "--count", "3")
        #expect(Self.ids(renewed) == ["4886_235_2_1", "4886_235_2_2", "4886_235_2_3"], "the next page of photos")
        #expect(try app.run("delete-pin", "1").status == 0)
        #expect(Self.externalFiles(app) == 0, "the photos went with their pin (cascade), files included")
        #expect(try app.run().lines == ["1. (35.68, 139.69): 0 photos"])
    }

    @Test func anUnreachableServiceSavesNothingAndBadInputIsRefused() throws {
        let app = ExampleProcess("VirtualTourist")
        try app.run("drop", "1", "2")
        let offline = try app.run("album", "1", "--service", "http://127.0.0.1:1")
        #expect(offline.status == 1)
        #expect(offline.output.contains("cannot reach the photo service"))
        #expect(try app.run().lines == ["1. (1.0, 2.0): 0 photos"])
        #expect(try app.run("drop", "100", "0").status == 64)
        for count in ["-5", "0", "51"] {
            let refused = try app.run("album", "1", "--count=\(count)")
            #expect(refused.status == 64)
            #expect(
                refused.lines.first == "Error: --count needs a number of photos from 1 to 50, not \(count)",
                "\(refused.output)")
        }
        let noPin = try app.run("album", "7")
        #expect(noPin.status == 1)
        #expect(noPin.output.contains("there is no pin 7"))
    }
}
