import ArgumentParser
import CDToolCore
import OpenCoreData

/// What every `cdtool` command shares: reporting on stderr and failing with one line.
enum CommandSupport {
    /// Writes `line` to stderr (progress and error messages; stdout carries the results).
    static func report(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Writes `text` to stdout without buffering it all first.
    static func output(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Runs `body`, turning any failure into `cdtool: error: <one line>` and exit code 1.
    static func run(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            report("cdtool: error: \(CDToolError(wrapping: error).description)")
            throw ExitCode.failure
        }
    }

    /// The file URL of a path argument, relative to the current directory.
    static func url(_ path: String) -> URL {
        URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
    }
}
