import Foundation

/// A first-in first-out queue of at most `capacity` items between producer threads and one
/// consumer: `push` blocks while it is full, so the items in flight, and the memory they hold,
/// stay bounded whatever the number of files.
///
/// `@unchecked Sendable`: every stored property is read and written only while `condition` is
/// locked (a condition variable: `Mutex` has no wait, so this is not a straight swap).
public final class BoundedQueue<Element>: @unchecked Sendable where Element: Sendable {
    private var items: [Element] = []
    private var head = 0
    private let capacity: Int
    private let condition = NSCondition()
    private var openProducers: Int
    /// Items the consumer waits for in `pop(atLeast:max:until:)` (0 when it does not wait for
    /// several): `push` wakes it only once that many are queued, not for every item.
    private var consumerWants = 0

    public init(capacity: Int, producers: Int) {
        self.capacity = max(1, capacity)
        self.openProducers = producers
    }

    public func push(_ item: Element) {
        condition.lock()
        while items.count - head >= capacity { condition.wait() }
        items.append(item)
        if consumerWants <= items.count - head { condition.broadcast() }
        condition.unlock()
    }

    /// Items pushed and not yet popped (at most `capacity`).
    public var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return items.count - head
    }

    /// One producer has finished.
    public func producerDone() {
        condition.lock()
        openProducers -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// The items queued, at most `max`, once at least `atLeast` are (capped at the capacity) or
    /// every producer is done, waiting at most until `deadline`: the consumer is woken once for
    /// many items instead of once per item (a thread switch per file of an import of small
    /// photos). `items` is empty when every producer is done and the queue is empty (`finished`
    /// true) or when the deadline passed with nothing queued (`finished` false).
    public func pop(atLeast: Int, max: Int, until deadline: Date) -> (items: [Element], finished: Bool) {
        condition.lock()
        defer { condition.unlock() }
        let wanted = Swift.max(1, Swift.min(atLeast, capacity))
        consumerWants = wanted
        defer { consumerWants = 0 }
        while items.count - head < wanted && openProducers > 0 {
            if !condition.wait(until: deadline) { break }
        }
        let n = Swift.min(items.count - head, Swift.max(1, max))
        if n == 0 { return ([], openProducers == 0) }
        let taken = Array(items[head..<(head + n)])
        head += n
        if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return (taken, false)
    }

    /// The next item, waiting at most until `deadline`; nil when every producer is done and the
    /// queue is empty (`finished` true), or when the deadline passed (`finished` false).
    public func pop(until deadline: Date) -> (item: Element?, finished: Bool) {
        let (items, finished) = pop(atLeast: 1, max: 1, until: deadline)
        return (items.first, finished)
    }
}
