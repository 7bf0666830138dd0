/// What a new password must satisfy: a minimum length and not being one of the passwords
/// attackers try first.
public enum PasswordPolicy {
    /// The fewest characters a new password may have.
    public static let minimumLength = 8
    /// scrypt takes any length, but an unbounded input is a cheap way to waste its time.
    public static let maximumLength = 256

    /// The field problem with `password`, if any; `field` names the request field.
    public static func problem(with password: String, field: String) -> MeetError.FieldProblem? {
        if password.count < minimumLength {
            return .init(field: field, code: "password.tooShort", arguments: ["minimum": String(minimumLength)])
        }
        if password.count > maximumLength {
            return .init(field: field, code: "password.tooLong", arguments: ["maximum": String(maximumLength)])
        }
        if common.contains(password.lowercased()) {
            return .init(field: field, code: "password.common")
        }
        return nil
    }

    /// The most common passwords of at least the minimum length, from public breach-corpus
    /// rankings, lower-cased.
    static let common: Set<String> = [
        "12345678", "123456789", "1234567890", "12345678910", "password", "password1", "password12",
        "password123", "passw0rd", "p@ssw0rd", "qwertyuiop", "qwerty123", "qwerty12345", "1q2w3e4r",
        "1q2w3e4r5t", "1qaz2wsx", "1qaz2wsx3edc", "zaq12wsx", "asdfghjkl", "asdfasdf", "zxcvbnm1",
        "iloveyou", "iloveyou1", "sunshine", "princess", "football", "baseball", "welcome1", "welcome123",
        "admin123", "administrator", "letmein1", "trustno1", "superman", "starwars", "whatever",
        "11111111", "00000000", "88888888", "87654321", "11223344", "12341234", "123123123", "147258369",
        "987654321", "123qweasd", "qweasdzxc", "abcd1234", "abc12345", "aa123456", "a1234567",
        "changeme", "computer", "michelle", "jennifer", "jordan23", "liverpool", "chelsea1", "arsenal1",
        "blink182", "pokemon1", "samsung1", "internet", "corvette", "mercedes", "master12", "monkey12",
        "dragon12", "shadow12", "qwertyui", "qwerty1234", "password!", "iloveu123", "1234qwer",
        "q1w2e3r4", "q1w2e3r4t5", "zxcvbnm123", "secret123", "loveme123", "hello123", "football1",
        "baseball1", "superman1", "batman123", "test1234", "testtest", "11111111a", "myspace1",
        "passpass", "unknown1", "meetupd1", "meetup123",
    ]
}
