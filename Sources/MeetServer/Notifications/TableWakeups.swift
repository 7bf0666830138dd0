import GRDB
import MeetCore

/// Wakes a worker after each committed change of a table, without doing anything on the
/// writer's queue: changes arriving while the worker is busy fold into one wake-up.
struct TableWakeups: Sendable {
    let stream: AsyncStream<Void>
    private let cancellable: AnyDatabaseCancellable

    init(table: String, in database: AppDatabase) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.stream = stream
        cancellable = DatabaseRegionObservation(tracking: Table(table))
            .start(in: database.pool, onError: { _ in continuation.finish() }, onChange: { _ in continuation.yield() })
    }

    /// Stops observing.
    func cancel() {
        cancellable.cancel()
    }
}
