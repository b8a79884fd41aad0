/// The template of the sync page (see ``Templates`` for the conventions).
extension Templates {
    static let sync = """
        {{#page}}
        <section class="card" aria-labelledby="sync-title">
        <h2 id="sync-title">Sync with your other devices</h2>
        <p>{{summary}}</p>
        <p class="detail">What syncs: the allowlist, My rules, the lists you subscribe to, blocked and labelled numbers, message words and senders, the Picket server and its policy. What stays on each device: its addresses, upstreams, client groups, passwords and keys (the Picket key too), and its browsing history.</p>
        {{^tls}}<p class="field-error">Sync is served only over HTTPS: start the console with <code>--tls-cert</code> and <code>--tls-key</code> (for example the home's certificate from <code>pepper dns certificate</code>).</p>{{/tls}}
        {{#following}}<p>To pair another device, use the serving home's console.</p>{{/following}}
        {{^following}}
        <h3>Pair a device</h3>
        {{#invitation}}
        <figure class="qr" aria-labelledby="sync-invitation-caption">{{{qr}}}
        <figcaption id="sync-invitation-caption">Scan it with Pepper on your phone (Settings › Sync with your other devices). On a computer: <code class="wrap">pepper sync pair '{{text}}'</code>. It works once, for 10 minutes.</figcaption>
        </figure>
        {{/invitation}}
        <form method="post" action="/sync/invite">\(csrf)
        <label for="sync-server">This console's address, as your devices reach it</label>
        <input id="sync-server" name="server" value="{{server}}" required inputmode="url"{{#serverError}} aria-invalid="true" aria-describedby="sync-server-error"{{/serverError}}>
        {{#serverError}}<p class="field-error" id="sync-server-error">{{serverError}}</p>{{/serverError}}
        <button type="submit"{{^tls}} disabled{{/tls}}>Make a one-time code</button>
        </form>
        {{/following}}
        </section>
        <section class="card" aria-labelledby="devices-title">
        <h2 id="devices-title">Paired devices</h2>
        {{#hasDevices}}
        <table>
        <thead><tr><th scope="col">Device</th><th scope="col">Paired</th><th scope="col">Last contact</th><th scope="col">Remove</th></tr></thead>
        <tbody>
        {{#devices}}<tr><td>{{name}}</td><td>{{paired}}</td><td>{{lastContact}}</td><td><form method="post" action="/sync/remove">\(csrf)<input type="hidden" name="device" value="{{name}}"><button type="submit" class="secondary" aria-label="Remove {{name}}">Remove</button></form></td></tr>{{/devices}}
        </tbody>
        </table>
        <p class="detail">A removed device can no longer sync with this home; what it sent so far stays.</p>
        {{/hasDevices}}
        {{^hasDevices}}<p>No device is paired with this home.</p>{{/hasDevices}}
        <p class="detail">Also from the command line: <code>pepper sync code</code>, <code>pepper sync devices</code>, <code>pepper sync remove NAME</code>, <code>pepper sync status</code>.</p>
        </section>
        {{/page}}
        """
}
