import Foundation
import PhotosModel
import PhotosPostgreSQL
import PhotosTestSupport
import Synchronization
import XCTest

/// History tokens are commit-ordered on PostgreSQL (issue 12 item 4): a consumer that has read
/// up to token N never later finds a transaction with a token ≤ N, while several writers, each
/// on its own connection, draw tokens and commit in an interleaved order.
final class HistoryCommitOrderTests: PostgresTestCase {
    /// What the threads report.
    final class Outcome: Sendable {
        let errors = Mutex<[String]>([])
        /// Tokens found by a poll below the highest token an earlier poll had seen.
        let lateTokens = Mutex<[Int64]>([])
        let polls = Mutex(0)
        let writersDone = Atomic<Int>(0)
    }

    func testAPollingConsumerNeverFindsATokenAtOrBelowOneItHasRead() throws {
        let writers = 4
        let transactionsEach = 30
        let url = connectionString
        let outcome = Outcome()
        let group = DispatchGroup()
        for w in 0..<writers {
            group.enter()
            Thread.detachNewThread {
                defer {
                    outcome.writersDone.add(1, ordering: .sequentiallyConsistent)
                    group.leave()
                }
                do {
                    let db = try PostgresDatabase(url)
                    for i in 0..<transactionsEach {
                        try db.transaction(.write) {
                            // Work before the token (as an import batch inserts its rows first)…
                            usleep(UInt32((w * 7 + i * 13) % 4) * 500)
                            let token = try db.appendHistoryTransaction(
                                timestamp: "2026-01-01T00:00:00.000Z", author: "writer\(w)", context: .import)
                            try db.appendHistoryChanges(
                                [HistoryChange(entity: "Photo", objectID: "w\(w)-\(i)", type: .insert)], token: token)
                            // …and after it, so that without the lock a later token could commit first.
                            usleep(UInt32((w * 5 + i * 3) % 5) * 700)
                        }
                    }
                } catch {
                    outcome.errors.withLock { $0.append("writer \(w): \(error)") }
                }
            }
        }
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            do {
                let db = try PostgresDatabase(url)
                var seen = Set<Int64>()
                var highest: Int64 = 0
                var finished = false
                while !finished {
                    // The last poll starts after every writer has committed.
                    finished = outcome.writersDone.load(ordering: .sequentiallyConsistent) == writers
                    var tokens: [Int64] = []
                    try db.forEachHistoryTransaction(matching: HistoryFilter()) { tokens.append($0.token) }
                    let late = tokens.filter { $0 <= highest && !seen.contains($0) }
                    if !late.isEmpty { outcome.lateTokens.withLock { $0 += late } }
                    seen.formUnion(tokens)
                    highest = max(highest, tokens.max() ?? 0)
                    outcome.polls.withLock { $0 += 1 }
                }
            } catch {
                outcome.errors.withLock { $0.append("consumer: \(error)") }
            }
        }
        group.wait()
        XCTAssertEqual(outcome.errors.withLock { $0 }, [])
        XCTAssertEqual(outcome.lateTokens.withLock { $0 }, [], "tokens that became visible after a higher one")
        XCTAssertGreaterThan(outcome.polls.withLock { $0 }, 1)
        let tokens = try db.statement("SELECT token FROM history_transaction ORDER BY token").map { $0.int64(0) }
        XCTAssertEqual(tokens.count, writers * transactionsEach)
        XCTAssertEqual(Set(tokens).count, tokens.count)
        XCTAssertEqual(try db.issuedHistoryToken(), tokens.last)
        // Every transaction kept its own change.
        XCTAssertEqual(
            try db.scalarInt("SELECT count(DISTINCT object_id) FROM history_change"), writers * transactionsEach)
    }

    func testTokensStayAboveCompactedOnesAndRolledBackOnesLeaveNoRow() throws {
        let first = try db.transaction {
            try db.appendHistoryTransaction(timestamp: "2026-01-01T00:00:00.000Z", author: "a", context: .import)
        }
        try db.inTransaction(.write) {
            _ = try db.appendHistoryTransaction(timestamp: "2026-01-01T00:00:00.000Z", author: "a", context: .rate)
            return false
        }
        try db.transaction { try db.deleteHistory(HistoryCut(throughToken: first)) }
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM history_transaction"), 0)
        let next = try db.transaction {
            try db.appendHistoryTransaction(timestamp: "2026-01-01T00:00:00.000Z", author: "a", context: .import)
        }
        XCTAssertGreaterThan(next, first)
        XCTAssertGreaterThanOrEqual(try db.issuedHistoryToken(), next)
    }
}
