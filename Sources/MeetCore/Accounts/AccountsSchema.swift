import GRDB

/// Tables of the accounts area (migrations 001–099): users, bearer tokens and the
/// one-time tokens mailed for confirming an address or resetting a password.
enum AccountsSchema {
    static let migrations: [Migration] = [
        Migration(name: "001 create user") { db in
            try db.create(table: "user") { t in
                t.primaryKey("id", .text)
                // Stored lower-cased; NOCASE guards against a stray mixed-case writer.
                t.column("email", .text).notNull().unique().collate(.nocase)
                t.column("displayName", .text).notNull()
                t.column("locale", .text).notNull()
                t.column("passwordHash", .text).notNull()
                t.column("emailConfirmedAt", .datetime)
                t.column("banned", .boolean).notNull().defaults(to: false)
                t.column("createdAt", .datetime).notNull()
            }
        },
        Migration(name: "002 create accessToken") { db in
            try db.create(table: "accessToken") { t in
                t.primaryKey("tokenHash", .blob)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("expiresAt", .datetime).notNull()
                t.column("lastUsedAt", .datetime).notNull()
            }
        },
        Migration(name: "003 create accountToken") { db in
            try db.create(table: "accountToken") { t in
                t.primaryKey("tokenHash", .blob)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("purpose", .text).notNull()
                    .check { [AccountToken.Purpose.confirmEmail.rawValue, AccountToken.Purpose.resetPassword.rawValue].contains($0) }
                t.column("createdAt", .datetime).notNull()
                t.column("expiresAt", .datetime).notNull()
                t.column("usedAt", .datetime)
            }
        },
    ]
}
