import DownloadLedger
import Foundation

let status = await CLI.main(Array(CommandLine.arguments.dropFirst()))
// libcurl's initialisation, started early by `get` and `run`, must be over before exit cleans OpenSSL up.
TransferEngine.waitForWarmUp()
exit(status)
