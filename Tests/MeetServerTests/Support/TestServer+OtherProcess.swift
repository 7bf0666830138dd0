import GRDB
import MeetCore

extension TestServer {
    /// A connection of its own to the server's SQLite file, as another process (the admin CLI,
    /// the sqlite3 shell) has: its commits reach the server only through the change log.
    func otherConnection() throws -> DatabasePool {
        try AppDatabase.openPool(path: dataDirectory.appendingPathComponent(AppDatabase.fileName).path)
    }
}
