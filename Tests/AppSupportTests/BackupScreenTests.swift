import AppSupport
import Foundation
import HomeBackup
import PepperActions
import Storage
import Testing

/// Settings › Back up and restore: the app's export and import of the `.pepperbackup` file,
/// on a real app context (its state open, as the app holds it) and, for sync, a real serving
/// home followed in this process.
@Suite("App backup screen")
struct BackupScreenTests {
    @Test func thePassphraseIsTypedTwice() throws {
        #expect(try BackupScreenPlan.exportPassphrase("", again: "") == nil)
        #expect(try BackupScreenPlan.exportPassphrase("correct horse", again: "correct horse") == Data("correct horse".utf8))
        #expect(throws: BackupScreenPlan.PassphraseMismatch()) {
            try BackupScreenPlan.exportPassphrase("correct horse", again: "correct hrose")
        }
        #expect(BackupScreenPlan.PassphraseMismatch().text == "The two passphrases differ: type the same one twice.")
    }

    @Test func importNeedsAFileAndTheConfirmation() {
        let none = BackupScreenPlan.checkImport(file: nil, confirmed: false)
        #expect(none.map(\.field) == [.file, .confirmation])
        #expect(none.first?.text == "Choose a backup file (.pepperbackup).")
        #expect(
            BackupScreenPlan.checkImport(file: URL(fileURLWithPath: "/tmp/b.pepperbackup"), confirmed: false).map(\.field) == [
                .confirmation
            ])
        #expect(BackupScreenPlan.checkImport(file: URL(fileURLWithPath: "/tmp/b.pepperbackup"), confirmed: true).isEmpty)
    }

    @Test func anExportedFileRestoresIntoTheOpenStateAndTheAppReloads() async throws {
        let phone = TemporaryContainer()
        let context = try AppContext(container: phone.container)
        _ = try await context.state.addAllowlist("kept.example", rebuild: false)
        let temporary = phone.container.url.appendingPathComponent("tmp")
        let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00 UTC
        let made = try await BackupScreenPlan.export(
            state: context.state, temporary: temporary, passphrase: Data("correct horse".utf8), pepperVersion: "9.9.9", now: now
        ).get()
        #expect(made.file.lastPathComponent == "pepper-backup-20270115-0800.pepperbackup")
        #expect(made.encrypted)
        #expect(try BackupActions.isEncrypted(made.file))
        #expect(made.text.hasPrefix("pepper-backup-20270115-0800.pepperbackup is ready ("))
        #expect(made.text.hasSuffix("encrypted with your passphrase: without it the file cannot be restored."))
        #expect(made.manifest.pepperVersion == "9.9.9")

        // Edited after the backup: the restore takes the phone back to the backup's state, in
        // the state the app holds open (no new context).
        _ = try await context.state.addAllowlist("later.example", rebuild: false)
        let restored = try await BackupScreenPlan.restore(file: made.file, passphrase: "correct horse", into: context.state, sync: nil)
            .get()
        let domains = try context.state.allowlistEntries().map(\.domain)
        #expect(domains.contains("kept.example"))
        #expect(!domains.contains("later.example"))
        #expect(restored.compiled)
        #expect(restored.text.hasPrefix("Restored pepper-backup-20270115-0800.pepperbackup: the backup of "))
        #expect(restored.text.hasSuffix("made by Pepper 9.9.9."))
        #expect(Set(restored.reloads) == [.screens, .callDirectory, .tunnel, .syncStatus])
        // The restored state was compiled: the app's screens and extensions read it.
        #expect(context.state.manifest() != nil)
    }

    @Test func aWrongPassphraseOrADamagedFileChangesNothingAndSaysWhich() async throws {
        let phone = TemporaryContainer()
        let context = try AppContext(container: phone.container)
        _ = try await context.state.addAllowlist("kept.example", rebuild: false)
        let temporary = phone.container.url.appendingPathComponent("tmp")
        let made = try await BackupScreenPlan.export(
            state: context.state, temporary: temporary, passphrase: Data("right".utf8), pepperVersion: "1"
        )
        .get()
        _ = try await context.state.addAllowlist("later.example", rebuild: false)

        let wrong = await BackupScreenPlan.restore(file: made.file, passphrase: "wrong", into: context.state, sync: nil)
        #expect(wrong.failure == .init(field: .passphrase, text: "This passphrase does not open the backup."))
        let missing = await BackupScreenPlan.restore(file: made.file, passphrase: "", into: context.state, sync: nil)
        #expect(missing.failure == .init(field: .passphrase, text: "This backup is encrypted: type its passphrase."))

        // A byte in the middle changed, as a bad copy would.
        var bytes = try Data(contentsOf: made.file)
        bytes[bytes.count / 2] ^= 0xFF
        let damaged = temporary.appendingPathComponent("damaged.pepperbackup")
        try bytes.write(to: damaged)
        let broken = try #require(
            await BackupScreenPlan.restore(file: damaged, passphrase: "right", into: context.state, sync: nil).failure)
        #expect(broken.field == .file)
        #expect(broken.text.hasPrefix("The backup is damaged"))

        let notOne = temporary.appendingPathComponent("list.pepperbackup")
        try Data("||ads.example^\n".utf8).write(to: notOne)
        let refused = try #require(await BackupScreenPlan.restore(file: notOne, passphrase: "", into: context.state, sync: nil).failure)
        #expect(refused.field == .file)
        #expect(refused.text.hasSuffix("is not a Pepper backup."))

        // Nothing changed.
        #expect(Set(try context.state.allowlistEntries().map(\.domain)) == ["kept.example", "later.example"])
    }

    @Test func aFollowingPhoneRestoresThroughItsRunnerAndOtherwiseIsToldToStopSyncing() async throws {
        let homes = try PhoneAndHome()
        _ = try await homes.runner.pair(try homes.invitation(), deviceName: "phone").get()
        let temporary = homes.phone.container.url.appendingPathComponent("tmp")
        let made = try await BackupScreenPlan.export(state: homes.context.state, temporary: temporary, passphrase: nil, pepperVersion: "1")
            .get()
        #expect(made.text.hasSuffix("not encrypted: keep it somewhere only you can open."))
        // Following syncs first, holding the sync lock from before that sync until it stops.
        let changes = await homes.runner.changes()
        await homes.runner.startFollowing()
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() != nil)
        #expect(await homes.runner.isFollowing)

        // Restored past the runner, the following's lock refuses it.
        let refused = await BackupScreenPlan.restore(file: made.file, passphrase: "", into: homes.context.state, sync: nil)
        #expect(
            refused.failure
                == .init(
                    field: nil,
                    text: "Nothing was restored: a sync with your other devices holds this phone's state. Stop syncing first, then restore."
                ))

        // Through the runner, the following pauses for the restore and starts again after it.
        let restored = try await BackupScreenPlan.restore(file: made.file, passphrase: "", into: homes.context.state, sync: homes.runner)
            .get()
        #expect(restored.compiled)
        #expect(try await homes.eventually { await homes.runner.isFollowing })
        await homes.runner.stopFollowing()
    }

    @Test func progressLines() {
        #expect(
            BackupScreenPlan.progressText(entry: "pepper.sqlite", done: 21, total: 50, restoring: false) == "Backing up pepper.sqlite (42%)"
        )
        #expect(BackupScreenPlan.progressText(entry: "lists/a.txt", done: 0, total: 0, restoring: true) == "Reading lists/a.txt (100%)")
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
