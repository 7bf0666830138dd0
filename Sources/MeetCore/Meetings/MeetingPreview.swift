import GRDB

extension MeetingService {
    /// A public meeting as anyone may see it when a link to it is shared, or `nil` for a
    /// private meeting and an unknown id alike (a shared link reveals nothing of a private one).
    public func sharedPreview(_ id: String) async throws -> Meeting? {
        try await database.quickRead { db in
            guard let meeting = try MeetingRecord.filter(Column("id") == id).fetchOne(db), meeting.visibility == .public else {
                return nil
            }
            return meeting.meeting(activityIds: try meeting.activityIds(in: db))
        }
    }
}
