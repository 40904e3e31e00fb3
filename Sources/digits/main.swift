import DigitApp
import DigitKit
import Foundation

// The `digits` command-line tool: a thin layer over DigitKit. Each command lives in
// Commands/ as a `CLICommand`; this file only dispatches and turns errors into exit codes.

let commands: [CLICommand.Type] = [
    TrainCommand.self,
    AdaptCommand.self,
    EvalCommand.self,
    RecognizeCommand.self,
    ComposeCommand.self,
    MakeNonDigitsCommand.self,
    PaperCommand.self,
    InfoCommand.self,
    VersionCommand.self,
    MNISTCommand.self,
    ImportUNIPENCommand.self,
    RasterizeCommand.self,
    BenchCommand.self,
    ExportONNXCommand.self,
]

exit(CLI.main(CommandLine.arguments, commands: commands))
