import Logging
import MeetCore
import Stomp

/// Each node decides for itself who left the rooms its sessions follow, from the change log,
/// beside the departures other nodes announce through the relay (``LiveRelay``): a node whose
/// link to RabbitMQ is down when its event reader turns a leave into a departure publishes it
/// to nobody, and the leaver's sessions elsewhere would keep the room until they reconnect.
///
/// Every membership that ends or changes, token that is revoked and user who is banned or
/// deleted logs a ``ChangeTopic/grant`` change naming the user (``RoomGrants``). For each such
/// change, the node reads the user's role in every meeting whose rooms their sessions here
/// follow, and ends the rooms they no longer belong to as a departure does
/// (``ChatRevocation``), within the change tail's poll (500 ms). Its own commits too: the
/// event reader that turns a leave into a departure may be another node's (the log's reading
/// is shared), whose link may be the one that is down. A room already ended by a departure has
/// no subscription left to end, so nobody is told twice.
enum ChatDepartureCheck {
    static func follow(_ changes: ChangeTail, broker: StompBroker, database: AppDatabase, logger: Logger,
                       depart: @escaping @Sendable ([ChatDeparture]) -> Void) {
        changes.subscribe(to: [.grant]) { [weak broker] changes in
            guard let broker else { return }
            for userId in Set(changes.map(\.subject)) {
                do {
                    let departures = try await departed(userId, following: broker.destinations(subscribedBy: userId), in: database)
                    if !departures.isEmpty { depart(departures) }
                } catch {
                    logger.warning("rooms of a user whose access changed not checked", metadata: [
                        "userId": "\(userId)", "error": "\(error)",
                    ])
                }
            }
        }
    }

    /// The meetings among those `destinations` name whose rooms `userId` no longer belongs to.
    static func departed(_ userId: String, following destinations: Set<String>,
                         in database: AppDatabase) async throws -> [ChatDeparture] {
        let meetingIds = Set(destinations.compactMap { MeetingTopic(destination: $0)?.meetingId })
        guard !meetingIds.isEmpty else { return [] }
        return try await database.quickRead { db in
            try meetingIds.sorted().filter { meetingId in
                do {
                    let role = try MeetingAccess.role(of: userId, inMeeting: meetingId, in: db)
                    return role != .organizer && role != .member
                } catch let error as MeetError where error.code == MeetingRefusal.notFound.code {
                    return true
                }
            }.map { ChatDeparture(meetingId: $0, userId: userId) }
        }
    }
}
