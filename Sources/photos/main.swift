import PhotosCLI
