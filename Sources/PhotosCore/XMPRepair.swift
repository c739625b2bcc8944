/// The repair of a packet the XMP Toolkit refuses as XMP (XMPErr_BadXMP), done on the bytes
/// themselves: no XML library is handed untrusted bytes here (issue 31 B13: FoundationXML's
/// `XMLDocument` trapped, SIGSEGV, on a packet with a repeated property and an invalid UTF-8
/// byte, and took the whole import with it).
extension XMPToolkit {
    /// The deepest element nesting the repair follows; a deeper packet is not repaired (real
    /// packets nest fewer than 10 levels). Bounds the namespace look-ups to depth × nodes.
    static let repairMaxDepth = 64

    /// The packet without the second and later occurrences of each top-level property (by
    /// namespace URI and local name, across all the `rdf:Description` children of `rdf:RDF`,
    /// attribute and element forms alike), and with every top-level `rdf:about` value set to
    /// the first one given; nil when nothing had to change, or when the packet is not one the
    /// repair can read: not valid UTF-8 (XML 1.0 §2.2, §4.3.3; a UTF-16/32 packet included),
    /// not well-formed as far as the repair reads it (tags that do not nest, an unterminated
    /// tag, comment, CDATA section or attribute value, an undeclared prefix), a DOCTYPE, or
    /// nested deeper than `repairMaxDepth`.
    ///
    /// XMP Specification Part 1 §7.4–§7.5: a packet describes one resource and each property
    /// appears once; the toolkit refuses a packet that breaks either, losing every other
    /// property with it. Work is linear in the bytes (each byte read a bounded number of times,
    /// prefix look-ups bounded by `repairMaxDepth`), memory a copy of them.
    static func repairedRDF(_ bytes: [UInt8]) -> [UInt8]? {
        guard isValidUTF8(bytes) else { return nil }
        var scanner = RDFRepairScanner(bytes)
        guard let edits = scanner.edits(), !edits.isEmpty else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var at = 0
        for edit in edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            guard edit.range.lowerBound >= at else { return nil } // overlapping: not repaired
            out.append(contentsOf: bytes[at..<edit.range.lowerBound])
            out.append(contentsOf: edit.replacement)
            at = edit.range.upperBound
        }
        out.append(contentsOf: bytes[at...])
        return out
    }

    /// True when `bytes` are well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or
    /// values past U+10FFFF) without a NUL.
    static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): if scalar.value == 0 { return false }
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}

/// One replacement of `bytes[range]` by `replacement` in a packet being repaired.
struct RDFRepairEdit {
    var range: Range<Int>
    var replacement: [UInt8]
}

/// A small reader of XML start and end tags (XML 1.0 §3.1) over UTF-8 bytes, with the
/// namespace bindings in scope (Namespaces in XML 1.0 §6), enough to find the properties of
/// the `rdf:Description` elements of `rdf:RDF` and where each begins and ends.
struct RDFRepairScanner {
    private let b: [UInt8]
    private var i = 0

    init(_ bytes: [UInt8]) { b = bytes }

    private struct Open {
        var name: ArraySlice<UInt8>
        var bindings: [(prefix: [UInt8], uri: [UInt8])]
        var start: Int
        var role: Role
    }

    private enum Role { case other, rdf, description, property(duplicate: Bool) }

    static let rdfNS = Array("http://www.w3.org/1999/02/22-rdf-syntax-ns#".utf8)
    static let xmlNS = Array("http://www.w3.org/XML/1998/namespace".utf8)

    private func starts(_ s: String, at j: Int) -> Bool {
        let u = s.utf8
        return j + u.count <= b.count && b[j..<(j + u.count)].elementsEqual(u)
    }

    /// The index just past the first `end` at or after `from`, nil when there is none.
    private func skip(past end: String, from: Int) -> Int? {
        let u = Array(end.utf8)
        var j = from
        while j + u.count <= b.count {
            if b[j] == u[0], b[j..<(j + u.count)].elementsEqual(u) { return j + u.count }
            j += 1
        }
        return nil
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    private static func isNameByte(_ c: UInt8) -> Bool {
        !isSpace(c) && c != 0x3E && c != 0x2F && c != 0x3D && c != 0x3C && c != 0x22 && c != 0x27
    }

    /// The namespace URI of prefix `prefix` (empty: the default namespace) with `stack` open
    /// and `own` the bindings of the tag being read; nil when undeclared.
    private static func resolve(_ prefix: ArraySlice<UInt8>, _ own: [(prefix: [UInt8], uri: [UInt8])], _ stack: [Open])
        -> [UInt8]?
    {
        if prefix.elementsEqual("xml".utf8) { return xmlNS }
        for binding in own.reversed() where binding.prefix.elementsEqual(prefix) { return binding.uri }
        for open in stack.reversed() {
            for binding in open.bindings.reversed() where binding.prefix.elementsEqual(prefix) { return binding.uri }
        }
        return prefix.isEmpty ? [] : nil
    }

    /// (prefix, local name) of a qualified name.
    private static func split(_ name: ArraySlice<UInt8>) -> (ArraySlice<UInt8>, ArraySlice<UInt8>) {
        guard let colon = name.firstIndex(of: 0x3A) else { return (name[name.startIndex..<name.startIndex], name) }
        return (name[name.startIndex..<colon], name[(colon + 1)...])
    }

    /// An attribute of a start tag: its qualified name, its bytes with the space before it,
    /// and its value with its quotes (byte offsets in the packet).
    private typealias Attribute = (name: ArraySlice<UInt8>, range: Range<Int>, value: Range<Int>)

    /// The attributes of the start tag whose name ends at `j` (name = "value" | 'value', each
    /// after space), read to past the tag's `>` or `/>` (`j` left there): the attributes, the
    /// namespace bindings among them (prefix, URI; an empty prefix for `xmlns`), and whether
    /// the tag closes itself. Nil when the tag cannot be read as described at
    /// `XMPToolkit.repairedRDF`.
    private func readAttributes(
        from j: inout Int
    ) -> (attributes: [Attribute], bindings: [(prefix: [UInt8], uri: [UInt8])], selfClosing: Bool)? {
        var attributes: [Attribute] = []
        var bindings: [(prefix: [UInt8], uri: [UInt8])] = []
        var selfClosing = false
        while true {
            let spaceStart = j
            while j < b.count, RDFRepairScanner.isSpace(b[j]) { j += 1 }
            guard j < b.count else { return nil }
            if b[j] == 0x3E { j += 1; break }
            if b[j] == 0x2F {
                guard j + 1 < b.count, b[j + 1] == 0x3E else { return nil }
                j += 2
                selfClosing = true
                break
            }
            guard j > spaceStart else { return nil } // attributes are separated by space
            let nameStart = j
            while j < b.count, RDFRepairScanner.isNameByte(b[j]) { j += 1 }
            let attributeName = b[nameStart..<j]
            guard !attributeName.isEmpty else { return nil }
            while j < b.count, RDFRepairScanner.isSpace(b[j]) { j += 1 }
            guard j < b.count, b[j] == 0x3D else { return nil }
            j += 1
            while j < b.count, RDFRepairScanner.isSpace(b[j]) { j += 1 }
            guard j < b.count, b[j] == 0x22 || b[j] == 0x27 else { return nil }
            let quote = b[j]
            let valueStart = j
            j += 1
            while j < b.count, b[j] != quote {
                guard b[j] != 0x3C else { return nil }
                j += 1
            }
            guard j < b.count else { return nil }
            j += 1
            attributes.append((attributeName, spaceStart..<j, valueStart..<j))
            if attributeName.elementsEqual("xmlns".utf8) {
                bindings.append(([], Array(b[(valueStart + 1)..<(j - 1)])))
            } else if attributeName.starts(with: "xmlns:".utf8) {
                bindings.append((Array(attributeName.dropFirst(6)), Array(b[(valueStart + 1)..<(j - 1)])))
            }
        }
        return (attributes, bindings, selfClosing)
    }

    /// Reads the end tag at `i` (`i` left past its `>`), which closes the innermost open
    /// element and must have its name; a repeated property's whole element becomes an edit.
    /// False when it cannot be read.
    private mutating func closeElement(_ stack: inout [Open], _ edits: inout [RDFRepairEdit]) -> Bool {
        var j = i + 2
        while j < b.count, RDFRepairScanner.isNameByte(b[j]) { j += 1 }
        let name = b[(i + 2)..<j]
        while j < b.count, RDFRepairScanner.isSpace(b[j]) { j += 1 }
        guard j < b.count, b[j] == 0x3E, let open = stack.popLast(), open.name.elementsEqual(name) else {
            return false
        }
        i = j + 1
        if case .property(duplicate: true) = open.role {
            edits.append(RDFRepairEdit(range: open.start..<i, replacement: []))
        }
        return true
    }

    /// The edits that remove repeated properties and unify `rdf:about`; nil when the packet
    /// cannot be read as described at `XMPToolkit.repairedRDF`.
    mutating func edits() -> [RDFRepairEdit]? {
        var stack: [Open] = []
        var seen = Set<[UInt8]>()
        var about: [UInt8]? // the first rdf:about value, quotes included
        var edits: [RDFRepairEdit] = []
        while i < b.count {
            guard b[i] == 0x3C else { i += 1; continue }
            if starts("<!--", at: i) {
                guard let end = skip(past: "-->", from: i + 4) else { return nil }
                i = end
            } else if starts("<![CDATA[", at: i) {
                guard let end = skip(past: "]]>", from: i + 9) else { return nil }
                i = end
            } else if starts("<?", at: i) {
                guard let end = skip(past: "?>", from: i + 2) else { return nil }
                i = end
            } else if starts("<!", at: i) {
                return nil // a DOCTYPE (no XMP packet has one): not repaired
            } else if starts("</", at: i) {
                guard closeElement(&stack, &edits) else { return nil }
            } else {
                guard stack.count < XMPToolkit.repairMaxDepth else { return nil }
                let start = i
                var j = i + 1
                while j < b.count, RDFRepairScanner.isNameByte(b[j]) { j += 1 }
                let name = b[(i + 1)..<j]
                guard !name.isEmpty else { return nil }
                // The attributes: name = "value" | 'value'.
                guard let tag = readAttributes(from: &j) else { return nil }
                let (attributes, bindings, selfClosing) = tag
                i = j
                let (prefix, local) = RDFRepairScanner.split(name)
                guard let uri = RDFRepairScanner.resolve(prefix, bindings, stack) else { return nil }
                let isRDF = uri == RDFRepairScanner.rdfNS
                var role = Role.other
                switch stack.last?.role {
                case .rdf? where isRDF && local.elementsEqual("Description".utf8):
                    role = .description
                    for attribute in attributes {
                        let (attributePrefix, attributeLocal) = RDFRepairScanner.split(attribute.name)
                        if attributePrefix.isEmpty || attributePrefix.elementsEqual("xmlns".utf8) { continue }
                        guard let attributeURI = RDFRepairScanner.resolve(attributePrefix, bindings, stack) else {
                            return nil
                        }
                        if attributeURI == RDFRepairScanner.rdfNS {
                            guard attributeLocal.elementsEqual("about".utf8) else { continue }
                            let value = Array(b[attribute.value])
                            if let first = about {
                                if first.dropFirst().dropLast() != value.dropFirst().dropLast() {
                                    edits.append(RDFRepairEdit(range: attribute.value, replacement: first))
                                }
                            } else {
                                about = value
                            }
                            continue
                        }
                        if attributeURI == RDFRepairScanner.xmlNS { continue }
                        if !seen.insert(attributeURI + [0x20] + Array(attributeLocal)).inserted {
                            edits.append(RDFRepairEdit(range: attribute.range, replacement: []))
                        }
                    }
                case .description?:
                    role = .property(duplicate: !seen.insert(uri + [0x20] + Array(local)).inserted)
                default:
                    if isRDF && local.elementsEqual("RDF".utf8) { role = .rdf }
                }
                if selfClosing {
                    if case .property(duplicate: true) = role {
                        edits.append(RDFRepairEdit(range: start..<i, replacement: []))
                    }
                } else {
                    stack.append(Open(name: name, bindings: bindings, start: start, role: role))
                }
            }
        }
        return stack.isEmpty ? edits : nil
    }
}
