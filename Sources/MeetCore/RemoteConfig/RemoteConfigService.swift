import Crypto
import Foundation
import GRDB
import Synchronization

/// Versions of the remote configuration, which one is live, and what each client gets of it.
///
/// Operators push documents and activate them from the admin CLI, another process. The
/// active document is kept in memory; an activation or a rollback is logged to the change log
/// (`docs/moderation.md`), which the server follows (``follow(_:)``), so a change is live within
/// a second and serving the configuration reads nothing from the database.
public final class RemoteConfigService: Sendable {
    static let versionNotFound = MeetError("config.versionNotFound", status: 404)

    let database: AppDatabase
    let now: @Sendable () -> Date
    /// The active version as last read; `nil` until read, and again after a change.
    private let live = Mutex<(version: Int64?, document: ConfigDocument?)?>(nil)

    /// A service on `database` that dates pushed versions with `now`.
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.now = now
    }

    /// Forgets the active version whenever any process activates or rolls back one.
    public func follow(_ changes: ChangeTail) {
        changes.subscribe(to: [.remoteConfig]) { [self] _ in
            live.withLock { $0 = nil }
        }
    }

    // MARK: - What clients get

    /// The configuration `client` gets from the active version: `{"version": N | null,
    /// "values": {key: value}}` as canonical JSON, with an ETag over exactly those bytes.
    public func configuration(for client: ConfigClient) async throws -> (json: Data, etag: String) {
        let (version, document) = try await activeDocument()
        let values = document?.values(for: client) ?? [:]
        let body = ConfigValue.object([
            "version": version.map { .number(Double($0)) } ?? .null,
            "values": .object(values),
        ]).canonicalJSON()
        let digest = SHA256.hash(data: body).prefix(16).map { String(format: "%02x", $0) }.joined()
        return (body, "\"\(digest)\"")
    }

    private func activeDocument() async throws -> (Int64?, ConfigDocument?) {
        if let cached = live.withLock({ $0 }) { return cached }
        let active = try await database.quickRead { db in try Self.activeRow(db) }
        // A document that no longer passes (a stricter server) serves nothing rather than junk.
        let loaded = (active?.versionId, active.flatMap { try? ConfigDocument($0.document) })
        live.withLock { $0 = loaded }
        return loaded
    }

    // MARK: - Operators' commands

    /// Stores a new version (not active yet).
    /// - Throws: `config.invalid` (422) naming every bad place of the document.
    public func push(_ json: Data, comment: String?, by actor: String) async throws -> ConfigVersion {
        let document = try ConfigValue.document(from: json)
        _ = try ConfigDocument(document)
        let text = String(decoding: document.canonicalJSON(pretty: true), as: UTF8.self)
        let time = now()
        let id = try await database.writer.write { db in
            try db.execute(
                sql: "INSERT INTO configVersion (document, comment, createdBy, createdAt) VALUES (?, ?, ?, ?)",
                arguments: [text, comment, actor, time.timeIntervalSince1970])
            let id = db.lastInsertedRowID
            try AuditLog.record("config.push", targetType: "configVersion", targetId: String(id), by: actor, reason: comment, in: db, at: time)
            return id
        }
        return ConfigVersion(id: id, document: document, comment: comment, createdBy: actor, createdAt: time, isActive: false)
    }

    /// Every version, newest first.
    public func versions() async throws -> [ConfigVersion] {
        try await database.reader.read { db in
            let active = try Self.activeRow(db)?.versionId
            return try Row.fetchAll(db, sql: "SELECT * FROM configVersion ORDER BY id DESC").map { try Self.version($0, active: active) }
        }
    }

    /// One version, or the active one when `id` is `nil`.
    /// - Throws: `config.versionNotFound` (404), also when nothing is active.
    public func version(_ id: Int64?) async throws -> ConfigVersion {
        try await database.reader.read { db in
            let active = try Self.activeRow(db)?.versionId
            guard let wanted = id ?? active,
                  let row = try Row.fetchOne(db, sql: "SELECT * FROM configVersion WHERE id = ?", arguments: [wanted])
            else { throw Self.versionNotFound }
            return try Self.version(row, active: active)
        }
    }

    /// Makes version `id` the one clients get; checked again first, so that nothing invalid
    /// ever goes live.
    public func activate(_ id: Int64, by actor: String) async throws -> ConfigVersion {
        let version = try await version(id)
        _ = try ConfigDocument(version.document)
        let time = now()
        try await database.writer.write { db in
            try db.execute(
                sql: "INSERT INTO configActivation (versionId, activatedBy, activatedAt) VALUES (?, ?, ?)",
                arguments: [id, actor, time.timeIntervalSince1970])
            try ChangeLog.record(.remoteConfig, subject: String(id), detail: "activated", in: db, at: time)
            try AuditLog.record("config.activate", targetType: "configVersion", targetId: String(id), by: actor, in: db, at: time)
        }
        return try await self.version(id)
    }

    /// Ends the current activation, so the one before it is live again (or none).
    /// - Returns: the version now active, or `nil`.
    /// - Throws: `config.nothingToRollBack` (409) when nothing is active.
    public func rollback(by actor: String) async throws -> ConfigVersion? {
        let time = now()
        let restored = try await database.writer.write { db -> Int64? in
            guard let active = try Self.activeRow(db) else { throw MeetError("config.nothingToRollBack", status: 409) }
            try db.execute(
                sql: "UPDATE configActivation SET rolledBackBy = ?, rolledBackAt = ? WHERE id = ?",
                arguments: [actor, time.timeIntervalSince1970, active.activationId])
            try ChangeLog.record(.remoteConfig, subject: String(active.versionId), detail: "rolled back", in: db, at: time)
            try AuditLog.record(
                "config.rollback", targetType: "configVersion", targetId: String(active.versionId), by: actor, in: db, at: time)
            return try Self.activeRow(db)?.versionId
        }
        guard let restored else { return nil }
        return try await version(restored)
    }

    /// What changed from version `a` to version `b`, key by key.
    public func diff(_ a: Int64, _ b: Int64) async throws -> [ConfigChange] {
        ConfigChange.between(try await version(a).document, try await version(b).document)
    }

    // MARK: - Rows

    private static func activeRow(_ db: Database) throws -> (activationId: Int64, versionId: Int64, document: ConfigValue)? {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT a.id AS activationId, v.id AS versionId, v.document FROM configActivation a
            JOIN configVersion v ON v.id = a.versionId
            WHERE a.rolledBackAt IS NULL ORDER BY a.id DESC LIMIT 1
            """) else { return nil }
        let document = try JSONDecoder().decode(ConfigValue.self, from: Data((row["document"] as String).utf8))
        return (row["activationId"], row["versionId"], document)
    }

    private static func version(_ row: Row, active: Int64?) throws -> ConfigVersion {
        let id: Int64 = row["id"]
        return ConfigVersion(
            id: id, document: try JSONDecoder().decode(ConfigValue.self, from: Data((row["document"] as String).utf8)),
            comment: row["comment"], createdBy: row["createdBy"],
            createdAt: Date(timeIntervalSince1970: row["createdAt"]), isActive: id == active)
    }
}

extension ChangeTopic {
    /// A configuration version was activated or rolled back (subject: its number).
    public static let remoteConfig = ChangeTopic(rawValue: "remoteConfig.activation")
}
