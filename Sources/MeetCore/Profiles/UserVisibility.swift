import GRDB

/// Who shows up to whom in profiles, search and nearby: only confirmed, unbanned users, and
/// never anyone either side has blocked (the friends area's rule, `Blocks`).
enum UserVisibility {
    /// An SQL condition on the `user` table for the users `viewer` may see.
    static func visible(to viewer: String) -> SQL {
        "user.emailConfirmedAt IS NOT NULL AND NOT user.banned AND \(Blocks.neitherBlocked(viewer, "user.id"))"
    }
}
