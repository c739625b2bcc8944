/// A photo's perceptual signature (issue 27 item 1): what the picture looks like, in a few bytes
/// that stay the same when the file is recompressed, resized, converted to another format or
/// slightly cropped, and differ between different pictures.
///
/// Computed from the decoded, upright, reduced image the thumbnailer makes (the 120-pixel one,
/// before its JPEG encoding: no second decode), so it is the same for a photo's HEIC, its JPEG
/// and its 2048-pixel export.
///
/// - `hash`: the 64-bit DCT perceptual hash of Zauner, "Implementation and Benchmarking of
///   Perceptual Image Hash Functions" (Hagenberg, 2010, §3.3; pHash 0.9's `ph_dct_imagehash`):
///   BT.601 luma, area-averaged to 32 × 32 (aspect ratio not kept), the 2-D DCT-II, the 8 × 8
///   block of its lowest frequencies without the DC row and column (coefficients 1…8 on both
///   axes), each bit 1 where the coefficient is above the block's median. Bit `8·v + u` is
///   coefficient (u horizontal, v vertical) — pHash's order. pHash's 7 × 7 mean filter before
///   the downscale is left out: the area average from a ≤ 120-pixel image is already that low
///   pass. Compared by Hamming distance (0…64).
/// - `meanCb`, `meanCr`: the first colour moment (Stricker & Orengo, "Similarity of color
///   images", SPIE 2420, 1995): the mean BT.601 full-range chroma, 0…255 (128 neutral), so a
///   grey and a red picture of the same shape, whose luma hashes agree, differ.
/// - `lowInformation`: the picture says too little for its hash to mean anything — the 32 × 32
///   luma's standard deviation is below `lowInformationDeviation` (a near-uniform picture: its
///   hash bits are the signs of noise), or the reduced image is under 8 pixels on an edge.
///   Such photos are never grouped on the signature alone.
public struct PerceptualSignature: Sendable, Equatable, Hashable {
    /// The version of the computation stored beside each signature (1: this one). A later
    /// version makes stored signatures of another version stale (recomputed by
    /// `thumbnails --rebuild`), never compared with new ones.
    public static let algorithm = 1

    /// The DCT hash, bit `8·v + u` for coefficient (u, v), u, v in 1…8.
    public var hash: UInt64
    /// Mean Cb, 0…255.
    public var meanCb: UInt8
    /// Mean Cr, 0…255.
    public var meanCr: UInt8
    /// True for near-uniform or tiny pictures (see the type's description).
    public var lowInformation: Bool

    /// A signature from its stored parts.
    public init(hash: UInt64, meanCb: UInt8, meanCr: UInt8, lowInformation: Bool) {
        self.hash = hash
        self.meanCb = meanCb
        self.meanCr = meanCr
        self.lowInformation = lowInformation
    }

    /// Hamming distance between the two hashes, 0…64.
    public func hashDistance(to other: PerceptualSignature) -> Int { (hash ^ other.hash).nonzeroBitCount }

    /// Colour distance: the larger of the two mean-chroma differences, 0…255.
    public func colourDistance(to other: PerceptualSignature) -> Int {
        max(abs(Int(meanCb) - Int(other.meanCb)), abs(Int(meanCr) - Int(other.meanCr)))
    }
}
