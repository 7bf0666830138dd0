import GRDB

/// Tables of the devices and notifications area (migrations 450–499): the phones that
/// receive pushes, the in-app inbox and the push and mail outboxes the dispatchers drain.
enum NotificationsSchema {
    static let migrations: [Migration] = [
        Migration(name: "450 create device") { db in
            try db.create(table: "device") { t in
                t.primaryKey("id", .text)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("pushService", .text).notNull().check { ["apns", "fcm"].contains($0) }
                t.column("token", .text).notNull()
                t.column("locale", .text).notNull()
                t.column("appVersion", .text)
                t.column("environment", .text).notNull().check { ["sandbox", "production"].contains($0) }
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
                // Set when the push service refused the token for good; no push goes to it then.
                t.column("disabledAt", .datetime)
                t.column("disabledReason", .text)
                // A token belongs to one phone, hence to one user at a time.
                t.uniqueKey(["pushService", "token"])
            }
        },
        Migration(name: "451 create notification and pushJob") { db in
            // The inbox: one row per user told about something. `seq` orders it and pages it.
            try db.create(table: "notification") { t in
                t.autoIncrementedPrimaryKey("seq")
                t.column("id", .text).notNull().unique()
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("kind", .text).notNull()
                // The entity it is about (a meeting, a friend request) and where the app opens it.
                t.column("subjectId", .text).notNull()
                t.column("deeplink", .text).notNull()
                // Pushes of one thread (a meeting, friend requests) are grouped and collapsed.
                t.column("thread", .text).notNull()
                // The named values of its localized title and body (actor, meeting title...).
                t.column("arguments", .jsonText).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("readAt", .datetime)
            }
            try db.create(index: "notificationByUser", on: "notification", columns: ["userId", "seq"])
            try db.create(index: "notificationUnread", on: "notification", columns: ["userId"], condition: Column("readAt") == nil)
            // The push outbox: one delivery to one device, written with the notification.
            try db.create(table: "pushJob") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("notificationId", .text).notNull().references("notification", column: "id", onDelete: .cascade)
                t.belongsTo("device", onDelete: .cascade).notNull()
                t.column("state", .text).notNull().check { PushJob.State.allCases.map(\.rawValue).contains($0) }
                t.column("attempts", .integer).notNull().defaults(to: 0)
                // Seconds since 1970: when the job may be tried (again).
                t.column("dueAt", .double).notNull()
                t.column("updatedAt", .double).notNull()
                t.column("lastError", .text)
            }
            try db.create(index: "pushJobDue", on: "pushJob", columns: ["state", "dueAt"])
            try db.create(index: "pushJobByNotification", on: "pushJob", columns: ["notificationId"])
            try db.create(index: "pushJobByDevice", on: "pushJob", columns: ["deviceId"])
        },
        Migration(name: "452 create notificationSetting and notificationMute") { db in
            // Quiet hours, in minutes after local midnight in the user's time zone.
            try db.create(table: "notificationSetting") { t in
                t.primaryKey("userId", .text).references("user", onDelete: .cascade)
                t.column("quietStart", .integer).notNull()
                t.column("quietEnd", .integer).notNull()
                t.column("timeZone", .text).notNull()
            }
            // A thread (`meeting.{id}`) the user hears nothing of by push; the inbox still has it.
            try db.create(table: "notificationMute") { t in
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("thread", .text).notNull()
                t.column("createdAt", .datetime).notNull()
                t.primaryKey(["userId", "thread"])
            }
        },
        Migration(name: "453 index notification by subject") { db in
            // Each chat message looks for every member's waiting push of its room (ChatPushes).
            try db.create(index: "notificationBySubject", on: "notification", columns: ["userId", "kind", "subjectId"])
        },
        Migration(name: "454 create mailJob and emailOptOut") { db in
            // The mail outbox: one mail of one notification, written with it (MailOutbox);
            // removed once the transport took it.
            try db.create(table: "mailJob") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("notificationId", .text).notNull().indexed().references("notification", column: "id", onDelete: .cascade)
                t.column("state", .text).notNull().check { ["pending", "sending", "dead"].contains($0) }
                t.column("attempts", .integer).notNull().defaults(to: 0)
                // Seconds since 1970: when the mail may be tried (again).
                t.column("dueAt", .double).notNull()
                t.column("updatedAt", .double).notNull()
                t.column("lastError", .text)
            }
            try db.create(index: "mailJobDue", on: "mailJob", columns: ["state", "dueAt"])
            // The mail topics a user turned off; every topic is on until then.
            try db.create(table: "emailOptOut") { t in
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("topic", .text).notNull()
                t.primaryKey(["userId", "topic"])
            }
        },
        Migration(name: "455 index chat pushes by age") { db in
            // The retention sweep (ChatPushRetention) looks for old chat pushes only.
            try db.execute(sql: "CREATE INDEX chatPushByAge ON notification(createdAt) WHERE kind = 'chat.message'")
        },
        Migration(name: "456 account mails in mailJob") { db in
            // An account mail (confirmation, reset) is a row naming its user and purpose, never
            // its token: the token is made when the mail is sent (AccountMailOutbox). SQLite
            // cannot relax a NOT NULL column, so the table is made again; through a copy rather
            // than a RENAME, which would check every trigger against tables later areas create.
            try db.execute(sql: "CREATE TEMP TABLE mailJobCopy AS SELECT * FROM mailJob; DROP TABLE mailJob")
            try db.create(table: "mailJob") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("notificationId", .text).indexed().references("notification", column: "id", onDelete: .cascade)
                t.column("userId", .text).indexed().references("user", column: "id", onDelete: .cascade)
                t.column("purpose", .text).check { ["confirmEmail", "resetPassword"].contains($0) }
                t.column("state", .text).notNull().check { ["pending", "sending", "dead"].contains($0) }
                t.column("attempts", .integer).notNull().defaults(to: 0)
                // Seconds since 1970: when the mail may be tried (again).
                t.column("dueAt", .double).notNull()
                t.column("updatedAt", .double).notNull()
                t.column("lastError", .text)
                // Either a notification's mail or an account mail, never both.
                t.check(sql: "(notificationId IS NULL) = (userId IS NOT NULL AND purpose IS NOT NULL)")
            }
            try db.create(index: "mailJobDue", on: "mailJob", columns: ["state", "dueAt"])
            try db.execute(sql: """
                INSERT INTO mailJob (id, notificationId, state, attempts, dueAt, updatedAt, lastError)
                SELECT id, notificationId, state, attempts, dueAt, updatedAt, lastError FROM mailJobCopy;
                DROP TABLE mailJobCopy;
                """)
        },
    ]
}
