/// EXIF orientation (EXIF 2.32 §4.6.4 Table 4, tag 0x0112): how the stored
/// pixels must be turned to be upright. The one orientation type of the package: the decoder,
/// the thumbnailer, the catalog and the CLI all use it.
public enum Orientation: Int, CaseIterable, Sendable {
    /// 1: as stored.
    case up = 1
    /// 2: mirrored horizontally.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored vertically.
    case downMirrored = 4
    /// 5: transposed.
    case leftMirrored = 5
    /// 6: rotate 90° clockwise to view.
    case right = 6
    /// 7: transversed.
    case rightMirrored = 7
    /// 8: rotate 90° counter-clockwise to view.
    case left = 8

    /// The orientation of an EXIF value; 0 and 9+ are reserved (EXIF 2.32 Table 4) and read
    /// as `.up`, the image as stored.
    public init(exif value: Int) { self = Orientation(rawValue: value) ?? .up }

    /// True for orientations 5–8, whose upright image has width and height swapped.
    public var swapsDimensions: Bool { rawValue >= 5 }
}
