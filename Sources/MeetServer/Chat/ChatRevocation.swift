import MeetCore
import Stomp

/// Whoever leaves a meeting, is removed from it, is separated from its organizer by a block or
/// loses it to a moderator's deletion stops hearing its rooms at once, on every device: the
/// broker ends their subscriptions to `/topic/meetings.{id}.chat`, `.typing` and `.locations`
/// without a last MESSAGE, and tells each
/// session on `/user/queue/errors` (code `meeting.notMember`, the room's destination and the
/// subscription id), as a new SUBSCRIBE would now be answered. (A banned user's sessions end
/// altogether, with their sign-in.)
enum ChatRevocation {
    static let refusal = StompRefusal(code: "meeting.notMember", message: "you are no longer a member of this meeting")

    static func endSubscriptions(of departures: [ChatDeparture], on broker: StompBroker) {
        for departure in departures {
            for room in MeetingTopic.Room.allCases {
                broker.endSubscriptions(
                    ofUser: departure.userId, to: "/topic/meetings.\(departure.meetingId).\(room.rawValue)", refusal: refusal)
            }
        }
    }
}
