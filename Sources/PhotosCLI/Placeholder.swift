import PhotosCore
