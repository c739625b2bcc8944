/// Core speaks the domain of PhotosModel in its API (typed values, history entities, JSON);
/// its clients get those types with Core.
@_exported import PhotosModel
