import PhotosModel

extension Library {
    /// Where the catalog commands read and write photos, tags, ratings and shares.
    var catalogStore: any CatalogStore { store }
}
