import Foundation
import Hummingbird
import MeetCore

/// `/devices` and `GET /me/devices`: the signed-in user's phones that receive pushes.
func addDeviceRoutes(to api: RouterGroup<AppRequestContext>, devices: DeviceService) {
    api.post("devices") { request, context in
        let me = try context.requireUser()
        let body = try await request.decode(as: DeviceRequest.self, context: context)
        let registration = DeviceRegistration(
            pushService: body.pushService, token: body.token, locale: body.locale, appVersion: body.appVersion,
            environment: body.environment)
        let (device, created) = try await devices.register(registration, for: me)
        // Registering a known token again refreshes it: 200 rather than 201.
        return EditedResponse(status: created ? .created : .ok, response: DeviceBody(device))
    }
    api.delete("devices/{id}") { _, context in
        try await devices.unregister(try context.parameters.require("id"), of: try context.requireUser())
        return HTTPResponse.Status.noContent
    }
    api.get("me/devices") { _, context in
        ItemList(items: try await devices.devices(of: try context.requireUser()).map(DeviceBody.init))
    }
}

struct DeviceRequest: Decodable {
    var pushService: String
    var token: String
    var locale: String
    var appVersion: String?
    var environment: String?
}

/// A device as its owner sees it.
struct DeviceBody: ResponseEncodable, Sendable {
    var id: String
    var pushService: String
    var token: String
    var locale: String
    var appVersion: String?
    var environment: String
    var createdAt: Date
    var updatedAt: Date
    /// False once the push service refused the token; the app registers a fresh one.
    var enabled: Bool

    init(_ device: Device) {
        id = device.id
        pushService = device.pushService.rawValue
        token = device.token
        locale = device.locale
        appVersion = device.appVersion
        environment = device.environment.rawValue
        createdAt = device.createdAt
        updatedAt = device.updatedAt
        enabled = device.disabledAt == nil
    }
}
