import Foundation
import Hummingbird
import Testing

extension TestServer {
    /// A 2×2 red PNG, the smallest photo a test needs.
    static let tinyPNG = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGM8ISfHwMDAxMDAwMDAAAANBAEIfXHKZgAAAABJRU5ErkJggg==")!

    /// Uploads `image` (by default ``tinyPNG``) as `token`'s user and returns the media id.
    func uploadPhoto(token: String, _ image: Data = TestServer.tinyPNG, contentType: String = "image/png") async throws -> String {
        let reply = try await client.executeRequest(
            uri: "/api/v1/media", method: .post, headers: [.contentType: contentType, .authorization: "Bearer " + token],
            body: ByteBuffer(bytes: image))
        let text = String(buffer: reply.body)
        #expect(reply.status == .created, "\(text)")
        return try #require(TestReply(status: Int(reply.status.code), headers: reply.headers, text: text).string("id"))
    }
}
