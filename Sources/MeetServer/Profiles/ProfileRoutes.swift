import Foundation
import Hummingbird
import MeetCore

/// `/me/profile`, `/me/location` and `/users...`: profiles, finding people by name and nearby.
///
/// `now` is the configured clock: it dates birth-date checks and the ages shown; `presence`
/// tells when a friend was last seen.
func addProfileRoutes(
    to api: RouterGroup<AppRequestContext>, profiles: ProfileService, locations: LocationService, presence: PresenceTracker,
    now: @escaping @Sendable () -> Date
) {
    api.get("me/profile") { _, context in
        ProfileBody(try await profiles.profile(of: try context.requireUser()), shownToOwner: true, today: now())
    }
    api.put("me/profile") { request, context in
        let userId = try context.requireUser()
        let body = try await request.decode(as: ProfileRequest.self, context: context)
        let profile = try Profile(
            validating: userId, displayName: body.displayName, bio: body.bio ?? "", birthDate: body.birthDate, city: body.city,
            photoId: body.photoId, activityIds: body.activityIds ?? [], languages: body.languages ?? [], today: now())
        return ProfileBody(try await profiles.update(profile), shownToOwner: true, today: now())
    }
    api.put("me/location") { request, context in
        let userId = try context.requireUser()
        let body = try await request.decode(as: LocationRequest.self, context: context)
        return LocationBody(try await locations.update(userId, lat: body.lat, lon: body.lon, share: body.share))
    }
    api.get("users") { request, context in
        let viewer = try context.requireUser()
        var query = QueryParameters(request)
        let limit: Int? = query.number("limit", 20)
        try query.check()
        let page = try await profiles.searchUsers(
            matching: query.string("q") ?? "", seenBy: viewer, after: query.string("cursor"), limit: limit ?? 20)
        return ItemList(items: page.items.map { ProfileBody($0, shownToOwner: false, today: now()) }, nextCursor: page.nextCursor)
    }
    api.get("users/nearby") { request, context in
        let viewer = try context.requireUser()
        var query = QueryParameters(request)
        let lat: Double? = query.number("lat")
        let lon: Double? = query.number("lon")
        let radiusKm: Double? = query.number("radiusKm", 10)
        let limit: Int? = query.number("limit", 50)
        try query.check()
        let neighbours = try await locations.nearby(
            lat: lat ?? 0, lon: lon ?? 0, radiusKm: radiusKm ?? 10, seenBy: viewer, limit: limit ?? 50)
        return ItemList(items: neighbours.map { NeighbourBody(user: ProfileBody($0.profile, shownToOwner: false, today: now()), distanceKm: $0.distanceKm) })
    }
    api.get("users/{id}") { _, context in
        let viewer = try context.requireUser()
        let userId = try context.parameters.require("id")
        let profile = try await profiles.profile(of: userId, seenBy: viewer)
        return ProfileBody(profile, shownToOwner: false, today: now(), lastSeenAt: try await presence.lastSeen(of: userId, seenBy: viewer))
    }
}
