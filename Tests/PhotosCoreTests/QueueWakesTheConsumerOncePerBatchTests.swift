import Foundation
import PhotosFiles
import Synchronization
import XCTest

/// `BoundedQueue.pop(atLeast:max:until:)`: import's thread is woken once the rest of a batch is
/// queued, not for every file; it still gets what is queued when the time is up, when the
/// workers are done, or when the queue is full (it never waits for more than fit).
final class QueueWakesTheConsumerOncePerBatchTests: XCTestCase {
    func testItReturnsTheItemsOnceAsManyAsAskedForAreQueued() {
        let queue = BoundedQueue<Int>(capacity: 64, producers: 1)
        let taken = expectation(description: "pop returned")
        let got = Mutex<[Int]>([])
        Thread.detachNewThread {
            let items = queue.pop(atLeast: 5, max: 64, until: Date().addingTimeInterval(300)).items
            got.withLock { $0 = items }
            taken.fulfill()
        }
        for i in 0..<5 { queue.push(i) }
        // The producer stays open and the deadline is far: only the five queued items wake it.
        wait(for: [taken], timeout: 60)
        XCTAssertEqual(got.withLock { $0 }, [0, 1, 2, 3, 4])
        XCTAssertEqual(queue.count, 0)
        queue.producerDone()
    }

    func testItReturnsWhatIsQueuedWhenTheTimeIsUp() {
        let queue = BoundedQueue<Int>(capacity: 64, producers: 1)
        for i in 0..<3 { queue.push(i) }
        let (items, finished) = queue.pop(atLeast: 10, max: 64, until: Date().addingTimeInterval(0.05))
        XCTAssertEqual(items, [0, 1, 2])
        XCTAssertFalse(finished)
        let (none, stillOpen) = queue.pop(atLeast: 10, max: 64, until: Date().addingTimeInterval(0.05))
        XCTAssertEqual(none, [])
        XCTAssertFalse(stillOpen, "the producer is not done: nothing queued is not the end")
    }

    func testWhenTheProducersAreDoneItReturnsTheRestThenFinished() {
        let queue = BoundedQueue<Int>(capacity: 64, producers: 2)
        queue.push(1)
        queue.push(2)
        queue.producerDone()
        queue.producerDone()
        let (items, finished) = queue.pop(atLeast: 64, max: 64, until: Date().addingTimeInterval(300))
        XCTAssertEqual(items, [1, 2])
        XCTAssertFalse(finished)
        let (none, done) = queue.pop(atLeast: 64, max: 64, until: Date().addingTimeInterval(300))
        XCTAssertEqual(none, [])
        XCTAssertTrue(done)
    }

    func testAskingForMoreThanFitReturnsAFullQueueAndFreesItsProducers() {
        let queue = BoundedQueue<Int>(capacity: 4, producers: 1)
        let pushedAll = expectation(description: "the producer pushed ten items")
        Thread.detachNewThread {
            for i in 0..<10 { queue.push(i) } // blocks while four are queued
            queue.producerDone()
            pushedAll.fulfill()
        }
        var got: [Int] = []
        while true {
            let (items, finished) = queue.pop(atLeast: 64, max: 3, until: Date().addingTimeInterval(300))
            if finished { break }
            XCTAssertLessThanOrEqual(items.count, 3)
            got += items
        }
        wait(for: [pushedAll], timeout: 60)
        XCTAssertEqual(got, Array(0..<10))
    }
}
