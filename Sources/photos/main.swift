import Foundation
import PhotosCLI

exit(CLI.main(arguments: Array(CommandLine.arguments.dropFirst())))
