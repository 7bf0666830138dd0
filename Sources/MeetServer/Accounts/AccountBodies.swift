import Foundation
import Hummingbird
import MeetCore

/// The signed-in user as `/me` and login show it: the only place the e-mail address appears.
struct AccountBody: ResponseEncodable {
    var id: String
    var email: String
    var displayName: String
    var locale: String
    var emailConfirmed: Bool
    var createdAt: Date

    init(_ user: User) {
        id = user.id
        email = user.email
        displayName = user.displayName
        locale = user.locale
        emailConfirmed = user.isConfirmed
        createdAt = user.createdAt
    }
}

struct LoginBody: ResponseEncodable {
    var accessToken: String
    var tokenType = "Bearer"
    var expiresAt: Date
    var user: AccountBody
}

struct RegisterRequest: Decodable {
    var email: String
    var password: String
    var displayName: String
    var locale: String?
}

struct LoginRequest: Decodable {
    var email: String
    var password: String
}

struct LogoutRequest: Decodable {
    var deviceId: String?
}

struct TokenRequest: Decodable {
    var token: String
}

/// `{email}`: whom a password reset or a new confirmation mail is for.
struct ForgotPasswordRequest: Decodable {
    var email: String
}

struct ResetPasswordRequest: Decodable {
    var token: String
    var newPassword: String
}
