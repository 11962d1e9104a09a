import Testing

@testable import OpenCoreDataPostgreSQL

/// SQLite's `?` placeholders numbered for PostgreSQL, leaving quoted text and comments alone.
@Suite struct PostgreSQLPlaceholdersTests {
    @Test func placeholdersAreNumberedInOrder() {
        #expect(
            PostgreSQLPlaceholders.numbered("SELECT Z_PK FROM ZNOTE WHERE ZTEXT = ? AND ZPAGES > ? LIMIT ?")
                == "SELECT Z_PK FROM ZNOTE WHERE ZTEXT = $1 AND ZPAGES > $2 LIMIT $3")
        #expect(PostgreSQLPlaceholders.numbered("SELECT 1") == "SELECT 1")
        #expect(PostgreSQLPlaceholders.numbered("VALUES (?,?)") == "VALUES ($1,$2)")
    }

    @Test func questionMarksInQuotesAndCommentsAreText() {
        #expect(
            PostgreSQLPlaceholders.numbered("SELECT '?', 'it''s ?', \"odd?name\" FROM t WHERE a = ?")
                == "SELECT '?', 'it''s ?', \"odd?name\" FROM t WHERE a = $1")
        #expect(
            PostgreSQLPlaceholders.numbered("SELECT ? -- why? because\nFROM t WHERE b = ?")
                == "SELECT $1 -- why? because\nFROM t WHERE b = $2")
    }
}
