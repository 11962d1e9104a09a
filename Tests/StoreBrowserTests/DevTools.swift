#if canImport(Glibc)
import Foundation
import Glibc

/// Headless Chromium driven over the DevTools protocol, through the pipe Chromium offers
/// for it (`--remote-debugging-pipe`): it reads commands from its descriptor 3 and writes
/// answers and events to its descriptor 4, each a JSON message ended by a NUL byte. No
/// WebSocket, no port; the tests see pages as a person's browser runs them, script included.
final class DevTools {
    private let process: pid_t
    /// Where commands go (Chromium's descriptor 3).
    private let commands: Int32
    /// Where answers and events come from (Chromium's descriptor 4).
    private let answers: Int32
    private var pending: [UInt8] = []
    private var lastID = 0

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `chromium` headless with `profile` as its user data folder and a blank page.
    init(chromium: String, profile: URL) throws {
        // A browser that dies makes writes to its pipe raise SIGPIPE, which would end the test
        // process; ignored, the write fails and the test says so.
        signal(SIGPIPE, SIG_IGN)
        var toChromium: [Int32] = [0, 0]
        var fromChromium: [Int32] = [0, 0]
        guard pipe(&toChromium) == 0, pipe(&fromChromium) == 0 else { throw Failure(description: "no pipe") }
        // Descriptors 3 and 4 of the child are made from ours; ours must not already be 3 or 4.
        let childReads = fcntl(toChromium[0], F_DUPFD, 10)
        let childWrites = fcntl(fromChromium[1], F_DUPFD, 10)
        close(toChromium[0])
        close(fromChromium[1])
        commands = toChromium[1]
        answers = fromChromium[0]
        _ = fcntl(commands, F_SETFD, FD_CLOEXEC)
        _ = fcntl(answers, F_SETFD, FD_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, childReads, 3)
        posix_spawn_file_actions_adddup2(&actions, childWrites, 4)
        let null = Glibc.open("/dev/null", O_WRONLY)
        posix_spawn_file_actions_adddup2(&actions, null, 1)
        posix_spawn_file_actions_adddup2(&actions, null, 2)
        let arguments = [
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--window-size=1200,800", "--remote-debugging-pipe", "--user-data-dir=\(profile.path)", "about:blank",
        ]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, chromium, &actions, nil, &argv, environ)
        close(childReads)
        close(childWrites)
        close(null)
        guard status == 0 else { throw Failure(description: "\(chromium) did not start (\(status))") }
        process = pid
    }

    /// Sends `method` with `params` (to the page of `session`, if given) and returns its result.
    @discardableResult
    func call(_ method: String, _ params: [String: Any] = [:], session: String? = nil) throws -> [String: Any] {
        lastID += 1
        var message: [String: Any] = ["id": lastID, "method": method, "params": params]
        if let session { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        let written = bytes.withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw Failure(description: "\(method): Chromium took no command") }
        // Events arrive between answers: read until the answer with this command's number.
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            guard let reply = try nextMessage(until: deadline) else { break }
            guard reply["id"] as? Int == lastID else { continue }
            if let error = reply["error"] as? [String: Any] {
                throw Failure(description: "\(method): \(error["message"] ?? error)")
            }
            return reply["result"] as? [String: Any] ?? [:]
        }
        throw Failure(description: "\(method): no answer from Chromium within a minute")
    }

    /// A new tab showing `address`, and the session that drives it.
    func open(_ address: String) throws -> String {
        let target = try call("Target.createTarget", ["url": address])
        let attached = try call("Target.attachToTarget", ["targetId": target["targetId"] ?? "", "flatten": true])
        guard let session = attached["sessionId"] as? String else { throw Failure(description: "no session") }
        return session
    }

    /// The value of a JavaScript `expression` in the page of `session`.
    func evaluate(_ expression: String, session: String) throws -> Any? {
        let result = try call(
            "Runtime.evaluate", ["expression": expression, "returnByValue": true], session: session)
        if let exception = result["exceptionDetails"] { throw Failure(description: "\(expression): \(exception)") }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Waits (up to `seconds`) until `expression` is true in the page; whether it became so.
    func wait(until expression: String, session: String, seconds: Int = 30) throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            // A page being replaced (a navigation) answers with an error for a moment.
            if (try? evaluate("Boolean(\(expression))", session: session)) as? Bool == true { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }

    /// A PNG of what the page of `session` shows.
    func screenshot(session: String) throws -> Data {
        let result = try call("Page.captureScreenshot", ["format": "png"], session: session)
        guard let text = result["data"] as? String, let png = Data(base64Encoded: text) else {
            throw Failure(description: "no screenshot")
        }
        return png
    }

    /// Closes the browser (then stops it, if it lingers) and waits for it to end.
    func quit() {
        _ = try? call("Browser.close")
        var status: Int32 = 0
        for _ in 0..<50 where waitpid(process, &status, WNOHANG) == 0 { Thread.sleep(forTimeInterval: 0.1) }
        if waitpid(process, &status, WNOHANG) == 0 {
            kill(process, SIGKILL)
            waitpid(process, &status, 0)
        }
        close(commands)
        close(answers)
    }

    /// The next message, or `nil` when none comes before `deadline` or Chromium has ended.
    private func nextMessage(until deadline: ContinuousClock.Instant) throws -> [String: Any]? {
        while true {
            if let end = pending.firstIndex(of: 0) {
                let message = Data(pending[..<end])
                pending.removeSubrange(...end)
                return try JSONSerialization.jsonObject(with: message) as? [String: Any]
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var readable = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&readable, 1, max(1, milliseconds)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { read(answers, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            pending += chunk[..<count]
        }
    }
}
#endif
