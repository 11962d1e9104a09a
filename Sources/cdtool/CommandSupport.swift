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

    /// The number of the first argument (1 for the first after `cdtool`) whose bytes are not
    /// UTF-8, and how it reads with U+FFFD for those bytes.
    static func firstArgumentNotUTF8() -> (Int, String)? {
        (1..<Int(CommandLine.argc)).lazy.compactMap { number -> (Int, String)? in
            guard let argument = CommandLine.unsafeArgv[number] else { return nil }
            let bytes = UnsafeRawBufferPointer(start: argument, count: strlen(argument))
            return String(validating: bytes, as: UTF8.self) == nil
                ? (number, String(decoding: bytes, as: UTF8.self)) : nil
        }.first
    }

    /// The file URL of a path argument, relative to the current directory.
    static func url(_ path: String) -> URL {
        URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
    }
}
