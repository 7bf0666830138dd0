import Foundation
import Hummingbird
import MeetCore

/// `/auth/...` and `GET /me`: registration, confirmation, sessions and password resets.
func addAccountRoutes(to api: RouterGroup<AppRequestContext>, accounts: AccountService, devices: DeviceService) {
    api.post("auth/register") { request, context in
        let body = try await request.decode(as: RegisterRequest.self, context: context)
        let locale = body.locale ?? preferredLanguage(request.headers[.acceptLanguage])
        let user = try await accounts.register(
            email: body.email, password: body.password, displayName: body.displayName, locale: locale, clientAddress: context.clientAddress)
        return EditedResponse(status: .created, response: AccountBody(user))
    }
    api.post("auth/confirm") { request, context in
        let body = try await request.decode(as: TokenRequest.self, context: context)
        return AccountBody(try await accounts.confirmEmail(token: body.token))
    }
    api.post("auth/login") { request, context in
        let body = try await request.decode(as: LoginRequest.self, context: context)
        let session = try await accounts.login(email: body.email, password: body.password, clientAddress: context.clientAddress)
        return LoginBody(accessToken: session.accessToken, expiresAt: session.expiresAt, user: AccountBody(session.user))
    }
    api.post("auth/logout") { request, context in
        let authentication = try context.requireAuthentication()
        // An optional body `{deviceId}` names the phone signing out: it stops getting pushes.
        if request.headers[.contentType] != nil,
           let deviceId = try await request.decode(as: LogoutRequest.self, context: context).deviceId {
            try await devices.unregister(deviceId, of: authentication.userId)
        }
        try await accounts.logout(authentication)
        return HTTPResponse.Status.noContent
    }
    api.post("auth/password/forgot") { request, context in
        let body = try await request.decode(as: ForgotPasswordRequest.self, context: context)
        try await accounts.requestPasswordReset(email: body.email, clientAddress: context.clientAddress)
        return HTTPResponse.Status.accepted
    }
    // Answers 202 whether or not a mail went out, like the forgotten password.
    api.post("auth/confirm/resend") { request, context in
        let body = try await request.decode(as: ForgotPasswordRequest.self, context: context)
        try await accounts.resendConfirmation(email: body.email, clientAddress: context.clientAddress)
        return HTTPResponse.Status.accepted
    }
    api.post("auth/password/reset") { request, context in
        let body = try await request.decode(as: ResetPasswordRequest.self, context: context)
        try await accounts.resetPassword(token: body.token, newPassword: body.newPassword)
        return HTTPResponse.Status.noContent
    }
    api.get("me") { _, context in
        AccountBody(try await accounts.user(id: try context.requireUser()))
    }
}

/// The primary language of the first range in an `Accept-Language` header, for a new
/// account's locale when the client does not name one.
func preferredLanguage(_ acceptLanguage: String?) -> String {
    let first = acceptLanguage?.split(separator: ",").first?.split(separator: ";").first?.split(separator: "-").first
    let language = first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    return (2...3).contains(language.count) && language.allSatisfy({ $0.isASCII && $0.isLetter }) ? language : "en"
}
