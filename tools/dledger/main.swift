import Foundation

exit(await CLI.main(Array(CommandLine.arguments.dropFirst())))
