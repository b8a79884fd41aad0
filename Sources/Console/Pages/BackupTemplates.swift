/// The template of the backup page (see ``Templates`` for the conventions).
extension Templates {
    static let backup = """
        {{#page}}
        <section class="card" aria-labelledby="download-title">
        <h2 id="download-title">Download a backup</h2>
        <p>One file with this home's decisions — the allowlist, My rules, the lists with their downloaded copies, calls, messages, the Picket server and key — and its history: the counts, the DNS log, the browser's history. Compiled rules are left out (they are made again from the lists), and so are the console's sessions.</p>
        <p>The file holds your Picket API key, the DNS log and your browsing history: <strong>give a passphrase for a backup that leaves this machine.</strong> Keep it safe: without it the backup cannot be restored, and nothing can recover it.</p>
        <form method="post" action="/backup/download" id="download-form">\(csrf)
        <label for="backup-passphrase">Passphrase (optional: without one the file is not encrypted)</label>
        <input id="backup-passphrase" name="passphrase" type="password" autocomplete="new-password"{{#passphraseError}} aria-invalid="true" aria-describedby="backup-passphrase-error"{{/passphraseError}}>
        <label for="backup-passphrase-again">The passphrase again</label>
        <input id="backup-passphrase-again" name="passphraseAgain" type="password" autocomplete="new-password"{{#passphraseError}} aria-invalid="true" aria-describedby="backup-passphrase-error"{{/passphraseError}}>
        {{#passphraseError}}<p class="field-error" id="backup-passphrase-error">{{passphraseError}}</p>{{/passphraseError}}
        <button type="submit">Download a backup</button>
        </form>
        <p class="detail">With a passphrase it takes a few seconds more: the key is made slow to guess (scrypt, 128 MiB of memory).</p>
        </section>
        <section class="card" aria-labelledby="restore-title">
        <h2 id="restore-title">Restore from a backup</h2>
        <p><strong>Restoring replaces this home's state</strong> — its allowlist, rules, lists, calls, messages, Picket settings and history — with the backup's, and compiles it at once. The state it replaces is kept beside the home, in a folder named <code class="wrap">{{homeName}}.replaced-</code> and the time.</p>
        <ul>
        <li>Sessions are not in backups: every other browser signed in to this console is signed out. This one stays signed in.</li>
        <li>A running <code>pepper dns serve</code> is not stopped: it keeps answering, and takes up the restored lists and rules once they are compiled. Its own settings (addresses, upstreams, client groups) are its command line's and do not change.</li>
        <li>Once a device has synced with this console since it started, the console keeps the home's sync state in memory and a restore here is refused: stop the console and use <code>pepper backup restore --replace</code>.</li>
        <li>A backup made by an older Pepper is brought up to date; one made by a newer Pepper is refused.</li>
        </ul>
        <form method="post" action="/backup/restore" enctype="multipart/form-data" id="restore-form">\(csrf)
        <label for="restore-file">Backup file (.pepperbackup, at most {{uploadLimit}})</label>
        <input id="restore-file" name="file" type="file" accept=".pepperbackup" required{{#restoreFileError}} aria-invalid="true" aria-describedby="restore-file-error"{{/restoreFileError}}>
        {{#restoreFileError}}<p class="field-error" id="restore-file-error">{{restoreFileError}}</p>{{/restoreFileError}}
        <label for="restore-passphrase">Its passphrase (when it has one)</label>
        <input id="restore-passphrase" name="passphrase" type="password" autocomplete="off"{{#restorePassphraseError}} aria-invalid="true" aria-describedby="restore-passphrase-error"{{/restorePassphraseError}}>
        {{#restorePassphraseError}}<p class="field-error" id="restore-passphrase-error">{{restorePassphraseError}}</p>{{/restorePassphraseError}}
        <div class="choice"><input type="checkbox" id="restore-confirm" name="confirm" value="yes" required{{#confirmError}} aria-invalid="true" aria-describedby="restore-confirm-error"{{/confirmError}}>
        <label for="restore-confirm">Replace this home's state with the backup's</label></div>
        {{#confirmError}}<p class="field-error" id="restore-confirm-error">{{confirmError}}</p>{{/confirmError}}
        <button type="submit" class="danger">Restore from this backup</button>
        </form>
        </section>
        {{/page}}
        """
}
