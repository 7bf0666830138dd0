import Foundation
import GRDB

/// The devices of each user: registered by the app after it obtains a push token,
/// unregistered on logout or by the dispatcher when the push service refuses the token.
public struct DeviceService: Sendable {
    static let notFound = MeetError("device.notFound", status: 404)

    let database: AppDatabase
    let now: @Sendable () -> Date

    /// A service on `database` that dates registrations with `now`.
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.now = now
    }

    /// Registers `registration` for `userId` and tells whether a new device was created.
    ///
    /// The same token registered again by its user refreshes the device (locale, version,
    /// environment) and enables it again. A token registered by another user moves: the old
    /// device goes, with its pending pushes, and a new one is created, so that one user's
    /// notifications never reach a phone someone else now signs in on.
    public func register(_ registration: DeviceRegistration, for userId: String) async throws -> (device: Device, created: Bool) {
        let fields = try registration.checked()
        return try await database.writer.write { [now] db in
            let time = now()
            if var existing = try Device.filter(Column("pushService") == fields.service.rawValue && Column("token") == fields.token).fetchOne(db) {
                if existing.userId == userId {
                    existing.locale = registration.locale
                    existing.appVersion = registration.appVersion
                    existing.environment = fields.environment
                    existing.updatedAt = time
                    existing.disabledAt = nil
                    existing.disabledReason = nil
                    try existing.update(db)
                    return (existing, false)
                }
                try existing.delete(db)
            }
            let device = Device(
                id: RandomToken.id(), userId: userId, pushService: fields.service, token: fields.token,
                locale: registration.locale, appVersion: registration.appVersion, environment: fields.environment,
                createdAt: time, updatedAt: time)
            try device.insert(db)
            return (device, true)
        }
    }

    /// Removes one of `userId`'s devices.
    /// - Throws: `device.notFound` unless the device exists and is theirs.
    public func unregister(_ deviceId: String, of userId: String) async throws {
        try await database.writer.write { db in
            let deleted = try Device.filter(Column("id") == deviceId && Column("userId") == userId).deleteAll(db)
            if deleted == 0 { throw Self.notFound }
        }
    }

    /// `userId`'s devices, newest first, disabled ones included (they say so).
    public func devices(of userId: String) async throws -> [Device] {
        try await database.quickRead { db in
            try Device.filter(Column("userId") == userId).order(Column("createdAt").desc, Column("id")).fetchAll(db)
        }
    }
}
