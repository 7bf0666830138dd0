import ArgumentParser
import Foundation
import MeetCore

/// `meetupd admin promo ...`: full-screen campaigns (`docs/remote-config.md`, "Promos").
struct PromoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "promo", abstract: "Add and list promos.", subcommands: [Push.self, List.self])

    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a promo from a JSON file.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "{title, text, startsAt, endsAt, imageMediaId?, deeplink?, meetingId?, audience?, priority?}") var file: String

        func run() async throws {
            try await admin.perform {
                let data = try Data(contentsOf: URL(fileURLWithPath: file))
                let draft: PromoDraft
                do {
                    draft = try JSONDecoder().decode(PromoDraft.self, from: data)
                } catch {
                    throw MeetError.invalidField("", "request.malformedJSON")
                }
                let promo = try await admin.promos().add(draft, by: admin.moderator.name)
                try admin.print(PromoSummary(promo)) { "promo \(promo.id) added" }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every promo with how often it was shown and dismissed.")
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            try await admin.perform {
                let promos = try await admin.promos().all()
                try admin.print(promos.map(PromoSummary.init), table: TextTable(columns: ["ID", "TITLE", "STARTS", "ENDS", "PRIORITY", "SHOWN", "DISMISSED"], rows: promos.map { promo in
                        [promo.id, promo.title, promo.startsAt.shown, promo.endsAt.shown, String(promo.priority),
                         String(promo.impressions), String(promo.dismissals)]
                    }))
            }
        }
    }
}

struct PromoSummary: Encodable {
    var id: String
    var title: String
    var startsAt: Date
    var endsAt: Date
    var priority: Int
    var impressions: Int
    var dismissals: Int

    init(_ promo: Promo) {
        id = promo.id
        title = promo.title
        startsAt = promo.startsAt
        endsAt = promo.endsAt
        priority = promo.priority
        impressions = promo.impressions
        dismissals = promo.dismissals
    }
}
