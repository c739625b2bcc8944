/// PhotosModel: the domain of a photo library, apart from any database or file system — typed
/// values parsed once at the edge (tag names, e-mail addresses, ratings, zones, roles,
/// permissions), the history entities, and the storage protocols that a database module
/// (PhotosSQLite today, PostgreSQL next) implements.
