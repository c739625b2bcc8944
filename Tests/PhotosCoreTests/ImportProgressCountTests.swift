import Foundation
import PhotosTestSupport
import Synchronization
import XCTest

@testable import PhotosCore

/// Import reports its progress once per group of files its thread takes from the workers, with
/// the count after the group: counts only go up, the last one is every file, and the total the
/// walk found is never below the count.
final class ImportProgressCountTests: TemporaryFolderTestCase {
    func testCountsGoUpAndEndAtEveryFile() throws {
        let count = 150
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        for i in 0..<count {
            try Data(try MetadataFixture.jpeg(seed: i)).write(to: URL(fileURLWithPath: dir + "/in/p\(i).jpg"))
        }
        let library = try Library(root: dir + "/lib", create: true)
        var options = ImportOptions(paths: [dir + "/in"])
        options.jobs = 2
        let importer = Importer(library: library, libraryRoot: dir + "/lib", options: options)
        let reports = Mutex<[[Int]]>([])
        importer.onProgress = { done, found in reports.withLock { $0.append([done, found]) } }
        let summary = try importer.run()
        XCTAssertEqual(summary.imported, count, "\(summary.failures)")
        let seen = reports.withLock { $0 }
        XCTAssertEqual(seen.last?[0], count)
        XCTAssertEqual(seen.map { $0[0] }, seen.map { $0[0] }.sorted())
        XCTAssertEqual(Set(seen.map { $0[0] }).count, seen.count, "one report per group, each with more files")
        for report in seen { XCTAssertGreaterThanOrEqual(report[1], report[0]) }
    }
}
