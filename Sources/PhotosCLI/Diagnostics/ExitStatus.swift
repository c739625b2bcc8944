/// Process exit statuses, from BSD `sysexits.h` (SPEC §5). Only the CLI knows them: Core's
/// typed errors become one in `ErrorReporting` (argument-parser keeps `ExitCode` in its CLI
/// layer the same way).
public enum ExitStatus: Int32, Sendable {
    /// Success.
    case ok = 0
    /// Done, but some items failed (each named on stderr).
    case partial = 1
    /// EX_USAGE: the command was used incorrectly.
    case usage = 64
    /// EX_DATAERR: the input data was incorrect.
    case dataError = 65
    /// EX_NOINPUT: an input file or the library did not exist or was not readable.
    case noInput = 66
    /// EX_UNAVAILABLE: the operation is not available for this library (`photos backup` of a
    /// catalog on a PostgreSQL server: its copy is `pg_dump`'s).
    case unavailable = 69
    /// EX_SOFTWARE: an internal error.
    case software = 70
    /// EX_CANTCREAT: an output file or folder cannot be created.
    case cantCreate = 73
    /// EX_IOERR: an error while reading or writing.
    case ioError = 74
    /// EX_TEMPFAIL: the library is busy (locked by another process); try later.
    case tempFail = 75
    /// EX_NOPERM: permission denied (a library or file this user may not write, a read-only
    /// file system).
    case noPermission = 77
    /// 128 + SIGHUP: a long command stopped at a batch boundary by SIGHUP (as rsync exits).
    case hangUp = 129
    /// 128 + SIGINT: stopped by SIGINT (Ctrl-C).
    case interrupt = 130
    /// 128 + SIGTERM: stopped by SIGTERM.
    case terminated = 143
}
