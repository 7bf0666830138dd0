import GRDB

/// Who shows up to whom in profiles, search and nearby: only confirmed, unbanned users, and
/// never anyone either side has blocked.
enum UserVisibility {
    /// An SQL condition on the `user` table for the users `viewer` may see.
    static func visible(to viewer: String) -> SQL {
        "user.emailConfirmedAt IS NOT NULL AND NOT user.banned AND \(neitherBlocked(viewer))"
    }

    /// The seam for blocks, which the friends area owns (`Blocks.neitherBlocked` on its
    /// branch, table `block`). Until that lands on main nobody can block anybody, so this
    /// holds for everyone.
    static func neitherBlocked(_ viewer: String) -> SQL {
        "1"
    }
}
