import ArgumentParser
import Foundation

/// Pick Your Pitch (seed 000, part B): the pitch slider's value and the midnight theme kept in
/// `UserDefaults`, with defaults registered on the first launch. The technique the seeds
/// start with: small preferences, read and written whole, no Core Data.
@main
struct PickYourPitchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "PickYourPitch",
        abstract: "Keep the pitch slider's value and the midnight theme in user defaults.",
        discussion:
            "The defaults are Foundation's UserDefaults.standard: on Linux a property list in $XDG_CONFIG_HOME (else ~/.config).",
        subcommands: [Show.self, Slider.self, Theme.self, Reset.self],
        defaultSubcommand: Show.self
    )
}

/// The app's keys and what it does at launch.
enum Preferences {
    static let sliderValue = "sliderValue"
    static let midnightThemeOn = "midnightThemeOn"
    static let hasLaunchedBefore = "hasLaunchedBefore"

    /// Registers the first-launch defaults (kept in memory, as `register(defaults:)` does)
    /// and says whether this is the first launch.
    static func launch(_ defaults: UserDefaults = .standard) -> Bool {
        defaults.register(defaults: [sliderValue: Float(0.5), midnightThemeOn: false])
        let first = !defaults.bool(forKey: hasLaunchedBefore)
        if first { defaults.set(true, forKey: hasLaunchedBefore) }
        return first
    }

    static func save(_ defaults: UserDefaults = .standard) throws {
        // Linux Foundation writes on synchronize(); Apple's would write soon after anyway.
        guard defaults.synchronize() else { throw PreferencesNotWritten() }
    }
}

/// The preferences file could not be written: not a usage error (exit code 1, no usage shown).
struct PreferencesNotWritten: Error, CustomStringConvertible {
    var description: String {
        let folder = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"] ?? "~/.config"
        return "the preferences could not be written: make \(folder) a writable folder and run again."
    }
}

extension PickYourPitchCommand {
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the slider value and the theme.")

        func run() throws {
            let defaults = UserDefaults.standard
            if Preferences.launch(defaults) { print("First launch: defaults registered.") }
            let value = defaults.float(forKey: Preferences.sliderValue)
            // The slider picks a playback pitch from an octave down to an octave up.
            let semitones = (value - 0.5) * 24
            print(String(format: "slider: %.2f (pitch %+.1f semitones)", value, semitones))
            print("midnight theme: \(defaults.bool(forKey: Preferences.midnightThemeOn) ? "on" : "off")")
            try Preferences.save(defaults)
        }
    }

    struct Slider: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move the slider (0 to 1).")
        @Argument(help: "The slider's value, from 0 to 1.") var value: Float

        func validate() throws {
            guard (0...1).contains(value) else { throw ValidationError("the slider goes from 0 to 1, not \(value)") }
        }

        func run() throws {
            _ = Preferences.launch()
            UserDefaults.standard.set(value, forKey: Preferences.sliderValue)
            try Preferences.save()
            print(String(format: "slider: %.2f", value))
        }
    }

    struct Theme: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn the midnight theme on or off, or toggle it.")
        enum Setting: String, ExpressibleByArgument, CaseIterable { case on, off, toggle }
        @Argument(help: "on, off or toggle.") var setting: Setting

        func run() throws {
            _ = Preferences.launch()
            let defaults = UserDefaults.standard
            let on = setting == .toggle ? !defaults.bool(forKey: Preferences.midnightThemeOn) : setting == .on
            defaults.set(on, forKey: Preferences.midnightThemeOn)
            try Preferences.save(defaults)
            print("midnight theme: \(on ? "on" : "off")")
        }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget every preference, as on a new install.")

        func run() throws {
            let defaults = UserDefaults.standard
            for key in [Preferences.sliderValue, Preferences.midnightThemeOn, Preferences.hasLaunchedBefore] {
                defaults.removeObject(forKey: key)
            }
            try Preferences.save(defaults)
            print("Preferences reset.")
        }
    }
}
