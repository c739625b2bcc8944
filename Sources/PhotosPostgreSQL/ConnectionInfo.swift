import CPq

/// A libpq connection string (a `postgresql://` URI or `key=value` pairs, libpq docs §34.1.1),
/// parsed with `PQconninfoParse` so that every option libpq knows passes through unchanged
/// (`sslmode`, `options`, `service`, `passfile`, …) and the password can be kept apart.
///
/// The password is never stored or printed: `recorded` (what `photos init --database` writes
/// into the library folder) and `display` (what messages name) leave it out; libpq finds it at
/// connect time in `PGPASSWORD`, `~/.pgpass` / `PGPASSFILE` or a service file (libpq docs §34.16).
public struct ConnectionInfo: Sendable, Equatable {
    /// The options given, in libpq's order, without empty ones; the password among them when
    /// one was given (only for connecting).
    public let options: [(key: String, value: String)]

    public static func == (a: ConnectionInfo, b: ConnectionInfo) -> Bool {
        a.options.elementsEqual(b.options) { $0.key == $1.key && $0.value == $1.value }
    }

    /// Parses `text`.
    /// - Throws: `PostgresError` `22023` (invalid_parameter_value) with a message that does not
    ///   repeat the text (it may hold a password).
    public init(_ text: String) throws {
        var errmsg: UnsafeMutablePointer<CChar>?
        guard let parsed = PQconninfoParse(text, &errmsg) else {
            // libpq's message can quote the part of the string it stumbled on: not repeated.
            if let errmsg { PQfreemem(errmsg) }
            throw PostgresError(
                sqlState: "22023",
                message:
                    "not a valid PostgreSQL connection string (libpq docs §34.1.1: postgresql://[user@]host[:port]/dbname[?param=value&…] or key=value …)"
            )
        }
        defer { PQconninfoFree(parsed) }
        var options: [(String, String)] = []
        var option = parsed
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val, value.pointee != 0 {
                options.append((String(cString: keyword), String(cString: value)))
            }
            option += 1
        }
        self.options = options
    }

    init(options: [(key: String, value: String)]) { self.options = options }

    /// The value of option `key` (`host`, `port`, `dbname`, `user`, …), when given.
    public subscript(key: String) -> String? { options.first { $0.key == key }?.value }

    /// The password given in the string, if any (only for scrubbing messages).
    var password: String? { self["password"] }

    /// These options with `key` set to `value` (replacing a value given before).
    public func setting(_ key: String, to value: String) -> ConnectionInfo {
        ConnectionInfo(options: options.filter { $0.key != key } + [(key, value)])
    }

    /// `key='value' …` with every option, the password too: only for handing to libpq.
    public var connectionString: String {
        options.map { "\($0.key)='\(ConnectionInfo.quote($0.value))'" }.joined(separator: " ")
    }

    /// The options without the password.
    public var withoutPassword: ConnectionInfo { ConnectionInfo(options: options.filter { $0.key != "password" }) }

    /// `key='value' …` without the password, each value quoted (libpq docs §34.1.1.1: single
    /// quotes, `\'` and `\\` escaped): what the library folder records.
    public var recorded: String {
        withoutPassword.options.map { "\($0.key)='\(ConnectionInfo.quote($0.value))'" }.joined(separator: " ")
    }

    /// A short name for messages: `postgresql://user@host:port/dbname`, without the password
    /// and the other options (libpq's defaults when not given: the local socket, 5432, the
    /// user's name).
    public var display: String {
        var text = "postgresql://"
        if let user = self["user"] { text += user + "@" }
        text += self["host"] ?? self["hostaddr"] ?? ""
        if let port = self["port"] { text += ":" + port }
        if let db = self["dbname"] { text += "/" + db }
        if let service = self["service"] { text += " (service \(service))" }
        return text
    }

    static func quote(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }

    /// `text` with the password replaced by `***`, for a message libpq or the server wrote.
    func scrub(_ text: String) -> String {
        guard let password, !password.isEmpty else { return text }
        return text.replacingOccurrences(of: password, with: "***")
    }
}
