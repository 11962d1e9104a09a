import Foundation

/// The movie database the actor picker searches: a stand-in for the web service the seed's
/// app calls, built in so the example runs offline.
enum Catalog {
    struct Actor {
        let id: Int64
        let name: String
        let imagePath: String
        let movies: [Movie]
    }

    struct Movie {
        let id: Int64
        let title: String
        let posterPath: String
        let released: String
    }

    static let actors: [Actor] = [
        Actor(
            id: 31, name: "Tom Hanks", imagePath: "/hanks.jpg",
            movies: [
                Movie(id: 13, title: "Forrest Gump", posterPath: "/gump.jpg", released: "1994-07-06"),
                Movie(id: 862, title: "Toy Story", posterPath: "/toy.jpg", released: "1995-11-22"),
                Movie(id: 2280, title: "Big", posterPath: "/big.jpg", released: "1988-06-03"),
            ]),
        Actor(
            id: 192, name: "Morgan Freeman", imagePath: "/freeman.jpg",
            movies: [
                Movie(id: 278, title: "The Shawshank Redemption", posterPath: "/shawshank.jpg", released: "1994-09-23"),
                Movie(id: 807, title: "Se7en", posterPath: "/se7en.jpg", released: "1995-09-22"),
            ]),
        Actor(
            id: 1245, name: "Scarlett Johansson", imagePath: "/johansson.jpg",
            movies: [
                Movie(id: 153, title: "Lost in Translation", posterPath: "/lost.jpg", released: "2003-09-12")
            ]),
        Actor(
            id: 2231, name: "Samuel L. Jackson", imagePath: "/jackson.jpg",
            movies: [
                Movie(id: 680, title: "Pulp Fiction", posterPath: "/pulp.jpg", released: "1994-09-10"),
                Movie(id: 1726, title: "Iron Man", posterPath: "/ironman.jpg", released: "2008-04-30"),
            ]),
        Actor(
            id: 6193, name: "Leonardo DiCaprio", imagePath: "/dicaprio.jpg",
            movies: [
                Movie(id: 597, title: "Titanic", posterPath: "/titanic.jpg", released: "1997-11-18"),
                Movie(id: 27205, title: "Inception", posterPath: "/inception.jpg", released: "2010-07-15"),
            ]),
        Actor(
            id: 3293, name: "Rachel Weisz", imagePath: "/weisz.jpg",
            movies: [
                Movie(id: 564, title: "The Mummy", posterPath: "/mummy.jpg", released: "1999-05-06")
            ]),
    ]

    /// The actors whose name contains `text`, ignoring case and accents, by name.
    static func search(_ text: String) -> [Actor] {
        actors.filter { $0.name.range(of: text, options: [.caseInsensitive, .diacriticInsensitive]) != nil }.sorted {
            $0.name < $1.name
        }
    }

    /// A release date as a date (noon UTC, so it prints as the same day everywhere).
    static func date(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text).map { $0.addingTimeInterval(12 * 3600) } ?? Date(timeIntervalSince1970: 0)
    }
}
