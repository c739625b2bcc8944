import Foundation

/// A JSON value whose objects keep their keys in insertion order, so that output reads in the
/// order SPEC §5a lists the keys.
public indirect enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    /// A number with `decimals` digits after the point, trailing zeros dropped (`43.6045`):
    /// positions need 7 decimals (1e-7 degrees), where `.double` prints 3.
    case decimal(Double, decimals: Int)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.serialized() == rhs.serialized() }

    /// Compact JSON text (RFC 8259), on one line.
    public func serialized() -> String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isFinite { out += String(format: "%.3f", d) } else { out += "null" }
        case .decimal(let d, let decimals):
            guard d.isFinite else {
                out += "null"
                break
            }
            var text = String(format: "%.\(max(0, min(decimals, 17)))f", d)
            if text.contains(".") {
                while text.hasSuffix("0") { text.removeLast() }
                if text.hasSuffix(".") { text.removeLast() }
            }
            if text == "-0" { text = "0" }
            out += text
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value) {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

extension JSONValue {
    /// `.string(s)` or `.null`.
    public static func optional(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
    /// `.int(i)` or `.null`.
    public static func optional(_ i: Int?) -> JSONValue { i.map(JSONValue.int) ?? .null }
}
