// swift-tools-version:6.0
// SPDX-License-Identifier: GPL-3.0-or-later
// photos: a photo library for the command line on Linux. Copyright the photos authors; see LICENSE.
import PackageDescription

let package = Package(
    name: "photos",
    products: [
        .executable(name: "photos", targets: ["photos"]),
        .library(name: "PhotosCore", targets: ["PhotosCore"])
    ],
    targets: [
        // Debian C libraries, linked through system-library targets.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libpq, PostgreSQL's own client library (the second catalog backend, issue 12).
        .systemLibrary(name: "CPq", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        // Whole-buffer DEFLATE (about twice zlib's inflate speed): PNG image data that fits in memory (png.c).
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        // Intel ISA-L's streaming inflate (igzip), for PNG image data too large to inflate whole.
        .systemLibrary(name: "CIsal", pkgConfig: "libisal", providers: [.apt(["libisal-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // XMP (sidecars and packets embedded in JPEG/PNG), read by namespace: Adobe's XMP Toolkit.
        .systemLibrary(name: "CExempi", pkgConfig: "exempi-2.0", providers: [.apt(["libexempi-dev"])]),
        // GPX tracks (`photos geotag`, issue 26 item 7): libxml2's streaming reader.
        .systemLibrary(name: "CXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // Colour management (ICC profiles → sRGB), HEIF/HEIC/AVIF and WebP decoding.
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        // libheif's header only: CImageCodec loads libheif.so.1 when it meets a HEIF or AVIF file
        // (heifapi.h), so that its start-up work is not paid by every process.
        .systemLibrary(name: "CHeif", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        // LibRaw (camera RAW files), its thread-safe build; raw.c runs it in the photos-decoder process per file.
        .systemLibrary(name: "CLibRaw", providers: [.apt(["libraw-dev"])]),
        // TIFF/BigTIFF (libtiff) and GIF (giflib), issue 24 items 3 and 4.
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "CGIF", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        // JPEG XL (issue 24 item 5): libjxl's decoder, JPEG reconstruction included (no pkgConfig: libjxl.pc
        // adds -DHWY_SHARED_DEFINE, which SwiftPM refuses with a warning; the header is in /usr/include).
        .systemLibrary(name: "CJXL", providers: [.apt(["libjxl-dev"])]),
        // FFmpeg's libraries (issue 25): videos' poster frames, durations, codecs and dates, read in process (video.c).
        .systemLibrary(
            name: "CAV", pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev"])]),
        // The only C of our own: libjpeg/libpng calls that need setjmp/longjmp error recovery.
        .target(
            name: "CImageCodec",
            dependencies: [
                "CJPEG", "CPNG", "CDeflate", "CIsal", "CLCMS2", "CHeif", "CWebP", "CLibRaw", "CTIFF", "CGIF", "CJXL",
                "CAV"
            ],
            // (Linked by name: libraw_r.pc's -fopenmp is a flag SwiftPM refuses; the library itself
            // brings libgomp as its own dependency.)
            linkerSettings: [
                .linkedLibrary("raw_r"), .linkedLibrary("jxl"), .linkedLibrary("avformat"), .linkedLibrary("avcodec"),
                .linkedLibrary("swscale"), .linkedLibrary("avutil")
            ]),
        // CImageCodec's test-only entry points (encoders of test inputs, libjpeg's own verdicts, our decoders past the
        // libjpeg-turbo version fence): a header of their own for the tests, not in CImageCodec's public one.
        .target(name: "CImageCodecTesting", dependencies: ["CImageCodec"]),
        // Exempi prints toolkit errors to std::cerr: a few lines of C++ to silence that.
        .target(name: "CExempiShim"),
        // Depends on the domain for `ImageFormat` alone (re-exported), so the domain imports no codec.
        .target(name: "PhotosImaging", dependencies: ["CImageCodec", "PhotosModel"]),
        // The POSIX layer: read and write loops, atomic files, the scanner, external data, SHA-256, the work queue.
        // Linux system calls glibc declares only under _GNU_SOURCE (syncfs), wrapped in C.
        .target(name: "CSystem"),
        .target(name: "PhotosFiles", dependencies: ["CCrypto", "CSystem"]),
        // The domain: typed values, records and the storage protocols (no database, no files).
        .target(name: "PhotosModel", dependencies: ["CSystem"]),
        // The statements whose text is the same on both catalog backends, with their row decoding, over a small
        // connection protocol (`SQLConnection`, `SQLRow`) each backend implements: no C driver, no dialect.
        .target(name: "PhotosSQL", dependencies: ["PhotosModel"]),
        // The SQLite implementation of the storage boundary: handle, statements, records, migrations (PhotosFiles for
        // the names of its backup files).
        .target(name: "PhotosSQLite", dependencies: ["CSQLite", "PhotosModel", "PhotosSQL", "PhotosFiles"]),
        // The PostgreSQL implementation of the same boundary, through libpq: a catalog shared by several machines.
        .target(name: "PhotosPostgreSQL", dependencies: ["CPq", "PhotosModel", "PhotosSQL"]),
        .target(
            name: "PhotosCore",
            dependencies: ["PhotosModel", "PhotosImaging", "PhotosFiles", "CExempi", "CExempiShim", "CXML2"]),
        .target(
            name: "PhotosCLI",
            dependencies: [
                "PhotosCore", "PhotosModel", "PhotosSQLite", "PhotosPostgreSQL", "PhotosImaging", "PhotosFiles"
            ]),
        .executableTarget(name: "photos", dependencies: ["PhotosCLI"]),
        // The decoder process: raw.c and heif.c start it (posix_spawn) for each RAW and HEIF/AVIF file, found next
        // to the running executable (decoder.h); installed beside `photos`.
        // Its sources are CImageCodec's RAW and HEIF files (symbolic links), so it links LibRaw and lcms2 alone.
        .executableTarget(
            name: "photos-decoder",
            cSettings: [.headerSearchPath("../CImageCodec"), .headerSearchPath("../CImageCodec/include")],
            linkerSettings: [.linkedLibrary("raw_r"), .linkedLibrary("lcms2"), .linkedLibrary("m")]),
        // Test support shared by the test targets: temporary folders, Samples/ and corpus locations, the MANIFEST reader, the binary runner.
        .target(
            name: "PhotosTestSupport", dependencies: ["PhotosCore", "PhotosFiles", "PhotosSQLite", "PhotosPostgreSQL"],
            path: "Tests/PhotosTestSupport"),
        .testTarget(
            name: "PhotosImagingTests",
            dependencies: [
                "PhotosImaging", "CImageCodec", "CImageCodecTesting", "CLCMS2", "CHeif", "CWebP", "PhotosTestSupport"
            ]),
        .testTarget(name: "PhotosSQLiteTests", dependencies: ["PhotosSQLite", "PhotosModel", "PhotosTestSupport"]),
        .testTarget(name: "PhotosModelTests", dependencies: ["PhotosModel"]),
        // The PostgreSQL backend's own behaviour (skipped unless PHOTOS_TEST_DATABASE_URL names a server).
        .testTarget(
            name: "PhotosPostgreSQLTests",
            dependencies: ["PhotosPostgreSQL", "PhotosSQLite", "PhotosSQL", "PhotosTestSupport"]),
        .testTarget(name: "PhotosCoreTests", dependencies: ["PhotosCore", "PhotosFiles", "PhotosTestSupport"]),
        .testTarget(name: "PhotosCLITests", dependencies: ["PhotosCLI", "PhotosFiles", "PhotosTestSupport"]),
        // The slow process-level tests: kill -9, busy and concurrent writers, memory bounds, read-only as nobody, the whole corpus.
        .testTarget(
            name: "PhotosEndToEndTests",
            dependencies: [
                "PhotosCore", "PhotosSQLite", "PhotosFiles", "CImageCodec", "CImageCodecTesting", "PhotosTestSupport"
            ])
    ],
    swiftLanguageModes: [.v6]
)
