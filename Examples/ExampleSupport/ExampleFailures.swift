import ArgumentParser
import Foundation
import OpenCoreData

// How the examples tell their users what went wrong: one line saying what happened and what
// to do, exit code 1, never an `NSError`'s dump. The cause is read from the error's codes and,
// where a path is involved, from the file system itself (whether a folder is writable tells
// more than SQLite's "unable to open database file").

extension ExampleFailure {
    /// A file the app reads whole (an archive, a feed) that is not what it should be.
    ///
    /// - Parameters:
    ///   - url: The file.
    ///   - contents: What it should hold, after "is not": "an address book archive".
    public static func damaged(_ url: URL, isNot contents: String) -> ExampleFailure {
        ExampleFailure("\(url.path) is damaged or is not \(contents): move it away and run again.")
    }

    /// The failure to show for `error`: `error` itself when it already speaks to the user
    /// (an `ExampleFailure`, or the argument parser's own errors), else one sentence about
    /// what happened and what to do.
    public static func presenting(_ error: Error) -> Error {
        switch error {
        case is ExampleFailure, is ValidationError, is ExitCode, is CleanExit: return error
        default: return ExampleFailure(sentence(for: error))
        }
    }

    /// One sentence for `error`, an error of Foundation, Core Data or SQLite: what happened
    /// and, where the error shows it, what to do.
    public static func sentence(for error: Error) -> String {
        let chain = causes(of: error as NSError)
        if chain.contains(where: isConflict) {
            return
                "another program changed the same data while this one was working, so nothing was saved: run the command again."
        }
        let sqliteCodes = chain.compactMap { $0.userInfo[NSSQLiteErrorDomain] as? Int }.map { $0 & 0xff }
        let posixCodes = chain.filter { $0.domain == NSPOSIXErrorDomain }.map(\.code)
        if sqliteCodes.contains(13) || posixCodes.contains(Int(ENOSPC))
            || chain.contains(where: { $0.domain == NSCocoaErrorDomain && $0.code == NSFileWriteOutOfSpaceError })
        {
            return "the disk is full: free some space and run again."
        }
        if sqliteCodes.contains(5) || sqliteCodes.contains(6) {
            return "the store is busy: another program kept it locked too long; close it and run again."
        }
        if let path = chain.lazy.compactMap(path(in:)).first {
            if let sentence = FileProblem.diagnose(path) { return sentence }
            if chain.contains(where: { $0.domain == NSCocoaErrorDomain && $0.code == NSFileReadCorruptFileErrorCode }) {
                return
                    "\(path) is damaged or is not a Core Data store: move it away (a new one is made) or put back a copy."
            }
        }
        return oneLine(plainDescription(of: error))
    }

    /// What `error` says of itself: a Foundation error its description for users; a Swift
    /// error of another library (a socket's) its own description, as its localized one
    /// would only name its type.
    private static func plainDescription(of error: Error) -> String {
        let foundationDomains = [NSCocoaErrorDomain, NSPOSIXErrorDomain, NSURLErrorDomain, NSSQLiteErrorDomain]
        if foundationDomains.contains((error as NSError).domain) { return error.localizedDescription }
        if let error = error as? LocalizedError, let text = error.errorDescription { return text }
        if !(type(of: error) is AnyClass), let error = error as? CustomStringConvertible { return error.description }
        return error.localizedDescription
    }

    /// `error` and the errors under it, outermost first (each a merge error's conflicts too).
    private static func causes(of error: NSError) -> [NSError] {
        var chain: [NSError] = []
        var pending = [error]
        // Bounded: an error that is its own cause must not loop.
        while let next = pending.popLast(), chain.count < 32 {
            chain.append(next)
            if let underlying = next.userInfo[NSUnderlyingErrorKey] as? NSError { pending.append(underlying) }
            pending.append(contentsOf: next.userInfo[NSDetailedErrorsKey] as? [NSError] ?? [])
        }
        return chain
    }

    private static func isConflict(_ error: NSError) -> Bool {
        error.domain == NSCocoaErrorDomain
            && [NSManagedObjectMergeError, NSPersistentStoreSaveConflictsError].contains(error.code)
    }

    private static func path(in error: NSError) -> String? {
        (error.userInfo[NSFilePathErrorKey] as? String) ?? (error.userInfo[NSURLErrorKey] as? URL)?.path
            ?? (error.userInfo[NSAffectedStoresErrorKey] as? [NSPersistentStore])?.first?.url?.path
    }

    /// `text` on one line: the description of a wrapped error may span several.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }
}

/// What the file system says about a path the app failed to use.
enum FileProblem {
    /// A sentence for the problem with `path` (a store, an archive or a folder) that the
    /// file system shows, or `nil` when it shows none.
    static func diagnose(_ path: String) -> String? {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isFolder) {
            if !isFolder.boolValue, access(path, W_OK) != 0 {
                return "cannot write \(path): the file is read-only; make it writable and run again."
            }
            let folder = isFolder.boolValue ? path : (path as NSString).deletingLastPathComponent
            if access(folder, W_OK) != 0 { return notWritable(folder) }
            return nil
        }
        return blocked(path)
    }

    /// Why the folder `path`, which does not exist, cannot be made: a file where a folder of
    /// its path should be, or a folder that may not be written; `nil` when neither.
    static func blocked(_ path: String) -> String? {
        var ancestor = (path as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        while !ancestor.isEmpty, ancestor != "/",
            !FileManager.default.fileExists(atPath: ancestor, isDirectory: &isFolder)
        {
            ancestor = (ancestor as NSString).deletingLastPathComponent
        }
        if FileManager.default.fileExists(atPath: ancestor, isDirectory: &isFolder), !isFolder.boolValue {
            return
                "cannot make the folder \(path): \(ancestor) is a file, not a folder; choose another folder with --data."
        }
        if access(ancestor, W_OK) != 0 { return notWritable(ancestor) }
        return nil
    }

    static func notWritable(_ folder: String) -> String {
        "cannot write in \(folder): the folder is not writable; make it writable or choose another folder with --data."
    }
}

extension ParsableCommand {
    /// Parses the command line and runs the command, as ArgumentParser's `main()` does, but
    /// refuses arguments that are not UTF-8 and presents a failure of the command as one
    /// sentence (``ExampleFailure/presenting(_:)``) with exit code 1.
    public static func mainPresentingFailures() {
        refuseArgumentsThatAreNotUTF8()
        var command: any ParsableCommand
        do { command = try parseAsRoot() } catch { exit(withError: explainingNegativeNumbers(error)) }
        do { try command.run() } catch { exit(withError: presented(error)) }
    }

    /// `error`, thrown by a command's `run()`, as ``ExampleFailure/presenting(_:)`` shows it;
    /// a request for help (run by the parser's own help command) stays as it is.
    static func presented(_ error: Error) -> Error {
        exitCode(for: error) == .success ? error : ExampleFailure.presenting(error)
    }

    /// `error`, a parsing error, or when an argument before `--` is a negative number, the
    /// reason: the parser reads `-5` as an option (swift-argument-parser issue 31), which
    /// would otherwise be reported as a missing argument or value.
    static func explainingNegativeNumbers(_ error: Error) -> Error {
        let arguments = CommandLine.arguments.dropFirst().prefix { $0 != "--" }
        guard exitCode(for: error) != .success,
            let number = arguments.first(where: { $0.hasPrefix("-") && Double($0) != nil })
        else { return error }
        return ValidationError(
            "\(number) was read as an option: put -- before arguments that are negative numbers, and write an option's negative value with = (--count=\(number))."
        )
    }

    /// Exits with a usage error (64) naming the first argument that is not UTF-8: Swift would
    /// read it with U+FFFD in place of its bytes, so a name would be saved wrong and a path
    /// would name another file.
    static func refuseArgumentsThatAreNotUTF8() {
        guard let (number, shown) = CommandLineBytes.firstArgumentNotUTF8() else { return }
        exit(
            withError: ValidationError(
                "argument \(number) (\(shown)) is not UTF-8 text: type it in UTF-8 (or rename the file it names)."))
    }
}

extension AsyncParsableCommand {
    /// ``ParsableCommand/mainPresentingFailures()`` for a command with asynchronous subcommands.
    public static func asyncMainPresentingFailures() async {
        refuseArgumentsThatAreNotUTF8()
        var command: any ParsableCommand
        do { command = try await asyncParseAsRoot() } catch { exit(withError: explainingNegativeNumbers(error)) }
        do {
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: presented(error))
        }
    }
}

/// The process's arguments as the bytes it was given.
enum CommandLineBytes {
    /// The number of the first argument (1 for the first after the program's name) whose
    /// bytes are not UTF-8, and the argument with U+FFFD for each byte that is not.
    static func firstArgumentNotUTF8() -> (Int, String)? {
        for number in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[number] else { continue }
            let bytes = UnsafeRawBufferPointer(start: argument, count: strlen(argument))
            if String(validating: bytes, as: UTF8.self) == nil {
                return (number, String(decoding: bytes, as: UTF8.self))
            }
        }
        return nil
    }
}
