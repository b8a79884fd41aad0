/// The templates of the calls and messages pages (see ``Templates`` for the conventions).
extension Templates {
    static let calls = """
        {{#page}}
        <section class="card" aria-labelledby="add-title">
        <h2 id="add-title">Block or label a number</h2>
        <form method="get" action="/calls">
        <label for="number">Number, or a range ending in # (such as +1 206 555 01##)</label>
        <input id="number" name="number" value="{{number}}" inputmode="tel" autocomplete="off" required{{#numberError}} aria-invalid="true" aria-describedby="number-error"{{/numberError}}>
        {{#numberError}}<p class="field-error" id="number-error">{{numberError}}</p>{{/numberError}}
        <button type="submit">Check the number</button>
        </form>
        <p class="detail">Numbers without a country code are read as {{region}} numbers.</p>
        {{#preview}}<div class="verdict" id="preview" role="status">
        <p>Saved as <strong class="wrap">{{value}}</strong>{{#isRange}}: {{numbers}} numbers, {{first}} to {{last}}{{/isRange}}.</p>
        <form method="post" action="/calls/block" class="inline">\(csrf)<input type="hidden" name="number" value="{{value}}"><button type="submit">Block {{#isRange}}these {{numbers}} numbers{{/isRange}}{{^isRange}}{{normalized}}{{/isRange}}</button></form>
        <form method="post" action="/calls/identify" class="inline">\(csrf)<input type="hidden" name="number" value="{{value}}"><input type="hidden" name="typed" value="{{number}}">
        <label for="label" class="inline-label">Or show the label</label>
        <input id="label" name="label" maxlength="64" placeholder="Pizza place"{{#labelError}} aria-invalid="true" aria-describedby="label-error"{{/labelError}}>
        <button type="submit" class="quiet">Save the label</button></form>
        </div>{{/preview}}
        {{#labelError}}<p class="field-error" id="label-error">{{labelError}}</p>{{/labelError}}
        </section>
        <section class="card" aria-labelledby="blocked-title">
        <h2 id="blocked-title">Block list</h2>
        {{^blocked}}<p>No number is blocked.</p>{{/blocked}}
        <ul class="entries" id="blocked-list">{{#blocked}}<li><span class="wrap">{{shown}}</span>
        <form method="post" action="/calls/unblock">\(csrf)<input type="hidden" name="number" value="{{value}}"><button type="submit" class="small quiet">Unblock {{value}}</button></form></li>{{/blocked}}</ul>
        </section>
        <section class="card" aria-labelledby="labels-title">
        <h2 id="labels-title">Labels shown when they call</h2>
        {{^identified}}<p>No number has a label.</p>{{/identified}}
        <ul class="entries" id="label-list">{{#identified}}<li><span class="wrap">{{shown}}</span>
        <form method="post" action="/calls/identify" class="inline">\(csrf)<input type="hidden" name="number" value="{{value}}">
        <label class="visually-hidden" for="label-{{index}}">Label of {{value}}</label><input id="label-{{index}}" name="label" value="{{label}}" maxlength="64" required>
        <button type="submit" class="small">Save</button></form>
        <form method="post" action="/calls/unidentify">\(csrf)<input type="hidden" name="number" value="{{value}}"><button type="submit" class="small quiet">Remove the label of {{value}}</button></form></li>{{/identified}}</ul>
        {{#notShown}}<p class="detail">{{notShown}}</p>{{/notShown}}
        </section>
        <section class="card" aria-labelledby="contacts-title">
        <h2 id="contacts-title">Block all except contacts</h2>
        <p class="status {{#blockAll}}ok{{/blockAll}}{{^blockAll}}off{{/blockAll}}" id="block-all-state">{{#blockAll}}On: only your {{contacts}} contact numbers ring.{{/blockAll}}{{^blockAll}}Off: callers who are not on the block list ring.{{/blockAll}}</p>
        <form method="post" action="/calls/block-all-except-contacts">\(csrf)<input type="hidden" name="on" value="{{^blockAll}}1{{/blockAll}}{{#blockAll}}0{{/blockAll}}"><button type="submit"{{#blockAll}} class="quiet"{{/blockAll}}>{{#blockAll}}Turn it off{{/blockAll}}{{^blockAll}}Block everyone but my contacts{{/blockAll}}</button></form>
        <p class="detail">{{note}}</p>
        <form method="post" action="/calls/contacts" enctype="multipart/form-data">\(csrf)
        <label for="vcard">Contacts ({{contacts}} numbers kept, shared with messages): import a vCard file</label>
        <input id="vcard" name="vcard" type="file" accept=".vcf,text/vcard"{{#contactsError}} aria-invalid="true" aria-describedby="contacts-error"{{/contactsError}}>
        {{#contactsError}}<p class="field-error" id="contacts-error">{{contactsError}}</p>{{/contactsError}}
        <button type="submit">Import the contacts</button>
        </form>
        </section>
        <section class="card" aria-labelledby="try-title">
        <h2 id="try-title">Try a number</h2>
        <form method="get" action="/calls" class="inline">
        <label for="try">Caller</label>
        <input id="try" name="try" value="{{tryNumber}}" inputmode="tel" required{{#tryError}} aria-invalid="true" aria-describedby="try-error"{{/tryError}}>
        <button type="submit">Try</button>
        </form>
        {{#tryError}}<p class="field-error" id="try-error">{{tryError}}</p>{{/tryError}}
        {{#trial}}<div class="verdict {{action}}" id="call-verdict" role="status"><p><strong>{{action}}</strong> {{e164}}</p><p>{{explanation}}</p></div>{{/trial}}
        </section>
        <div class="columns">
        <section class="card" aria-labelledby="export-title">
        <h2 id="export-title">What the call directory holds</h2>
        <dl class="facts" id="export-facts">
        <dt>Blocking entries</dt><dd>{{exportBlocking}}</dd>
        <dt>Identification entries</dt><dd>{{exportIdentification}}</dd>
        <dt>Version</dt><dd>{{exportVersion}}</dd>
        <dt>Incremental loads since</dt><dd>version {{exportSince}}</dd>
        </dl>
        <p class="detail">The phone's call-directory extension loads these; on Linux, <code>pepper calls export</code> prints them.</p>
        </section>
        <section class="card" aria-labelledby="call-counts-title">
        <h2 id="call-counts-title">Calls</h2>
        <table><thead><tr><th scope="col">What</th><th scope="col" class="number">Today</th><th scope="col" class="number">7 days</th></tr></thead>
        <tbody>{{#counts}}<tr><th scope="row">{{label}}</th><td class="number">{{today}}</td><td class="number">{{week}}</td></tr>{{/counts}}</tbody></table>
        </section>
        </div>
        <section class="card" aria-labelledby="region-title">
        <h2 id="region-title">Region</h2>
        <form method="post" action="/calls/region" class="inline">\(csrf)
        <label for="region">Numbers without a country code are from</label>
        <select id="region" name="region">{{#regions}}<option value="{{code}}"{{#selected}} selected{{/selected}}>{{code}}</option>{{/regions}}</select>
        <button type="submit">Save</button>
        </form>
        </section>
        {{/page}}
        """

    static let messages = """
        {{#page}}
        <section class="card" aria-labelledby="guard-title">
        <h2 id="guard-title">SMS guard</h2>
        <p class="status {{#enabled}}ok{{/enabled}}{{^enabled}}off{{/enabled}}" id="guard-state">{{#enabled}}On: messages are sorted by the rules below.{{/enabled}}{{^enabled}}Off: every message is allowed; the rules are kept.{{/enabled}}</p>
        <form method="post" action="/messages/guard">\(csrf)<input type="hidden" name="on" value="{{^enabled}}1{{/enabled}}{{#enabled}}0{{/enabled}}"><button type="submit"{{#enabled}} class="quiet"{{/enabled}}>{{#enabled}}Turn the SMS guard off{{/enabled}}{{^enabled}}Turn the SMS guard on{{/enabled}}</button></form>
        </section>
        <section class="card" aria-labelledby="words-title">
        <h2 id="words-title">Words</h2>
        <p>A word or phrase matches whole words, whatever the case, accents, look-alike letters or digits used for letters: each word below lists spellings it still catches.</p>
        <form method="post" action="/messages/words/add">\(csrf)
        <label for="word">Word or phrase</label>
        <input id="word" name="word" value="{{wordInput}}" maxlength="100" required{{#wordError}} aria-invalid="true" aria-describedby="word-error"{{/wordError}}>
        {{#wordError}}<p class="field-error" id="word-error">{{wordError}}</p>{{/wordError}}
        <fieldset class="inline"><legend>Where messages with it go</legend>
        {{#actions}}<input type="radio" id="action-{{value}}" name="action" value="{{value}}"{{#checked}} checked{{/checked}}><label for="action-{{value}}">{{label}}</label>{{/actions}}
        </fieldset>
        <button type="submit">Add the word</button>
        </form>
        {{^words}}<p>No word rule.</p>{{/words}}
        {{#hasWords}}<div class="scroll"><table id="word-table"><thead><tr><th scope="col">Word</th><th scope="col">Goes to</th><th scope="col">Also catches</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead><tbody>
        {{#words}}<tr><th scope="row" class="wrap">{{word}}{{#sender}} <span class="detail">(from {{sender}})</span>{{/sender}}</th><td>{{action}}{{#subAction}} <span class="detail">({{subAction}})</span>{{/subAction}}</td><td class="wrap">{{lookAlikes}}</td>
        <td><form method="post" action="/messages/words/remove">\(csrf)<input type="hidden" name="word" value="{{word}}"><input type="hidden" name="sender" value="{{sender}}"><button type="submit" class="small quiet">Remove {{word}}</button></form></td></tr>{{/words}}
        </tbody></table></div>{{/hasWords}}
        </section>
        <section class="card" aria-labelledby="senders-title">
        <h2 id="senders-title">Senders</h2>
        <form method="post" action="/messages/senders/block" class="inline">\(csrf)
        <label for="sender">Send to junk everything from</label>
        <input id="sender" name="sender" value="{{senderInput}}" placeholder="+1 253 950 1212 or PROMO" required{{#senderError}} aria-invalid="true" aria-describedby="sender-error"{{/senderError}}>
        <button type="submit">Block the sender</button>
        </form>
        {{#senderError}}<p class="field-error" id="sender-error">{{senderError}}</p>{{/senderError}}
        {{^blockedSenders}}<p>No sender is blocked.</p>{{/blockedSenders}}
        <ul class="entries" id="sender-list">{{#blockedSenders}}<li><span class="wrap">{{.}}</span><form method="post" action="/messages/senders/unblock">\(csrf)<input type="hidden" name="sender" value="{{.}}"><button type="submit" class="small quiet">Unblock {{.}}</button></form></li>{{/blockedSenders}}</ul>
        <h3>Unknown senders</h3>
        <p class="status {{#unknownJunk}}ok{{/unknownJunk}}{{^unknownJunk}}off{{/unknownJunk}}" id="unknown-state">{{#unknownJunk}}Messages from senders who are not among your {{contacts}} contact numbers go to junk.{{/unknownJunk}}{{^unknownJunk}}Messages from unknown senders are sorted by your words.{{/unknownJunk}}</p>
        <form method="post" action="/messages/unknown">\(csrf)<input type="hidden" name="on" value="{{^unknownJunk}}1{{/unknownJunk}}{{#unknownJunk}}0{{/unknownJunk}}"><button type="submit" class="quiet">{{#unknownJunk}}Sort unknown senders by words{{/unknownJunk}}{{^unknownJunk}}Send unknown senders to junk{{/unknownJunk}}</button></form>
        <p class="detail">Contacts are imported on the <a href="/calls#contacts-title">Calls</a> page.</p>
        </section>
        <section class="card" aria-labelledby="try-message-title">
        <h2 id="try-message-title">Try a message</h2>
        <form method="post" action="/messages/try">\(csrf)
        <label for="try-sender">From</label>
        <input id="try-sender" name="from" value="{{tryFrom}}" required{{#trySenderError}} aria-invalid="true" aria-describedby="try-sender-error"{{/trySenderError}}>
        {{#trySenderError}}<p class="field-error" id="try-sender-error">{{trySenderError}}</p>{{/trySenderError}}
        <label for="try-text">Message</label>
        <textarea id="try-text" name="text" rows="3" required{{#tryTextError}} aria-invalid="true" aria-describedby="try-text-error"{{/tryTextError}}>{{tryText}}</textarea>
        {{#tryTextError}}<p class="field-error" id="try-text-error">{{tryTextError}}</p>{{/tryTextError}}
        <button type="submit">Try the message</button>
        </form>
        {{#trial}}<div class="verdict {{action}}" id="message-verdict" role="status"><p><strong>{{action}}</strong>{{#subAction}} ({{subAction}}){{/subAction}} — rule: {{ruleKind}}</p><p class="wrap">{{explanation}}</p></div>{{/trial}}
        <p class="detail">Trying does not count in the figures below.</p>
        </section>
        <section class="card" aria-labelledby="message-counts-title">
        <h2 id="message-counts-title">Messages</h2>
        <table><thead><tr><th scope="col">What</th><th scope="col" class="number">Today</th><th scope="col" class="number">7 days</th></tr></thead>
        <tbody>{{#counts}}<tr><th scope="row">{{label}}</th><td class="number">{{today}}</td><td class="number">{{week}}</td></tr>{{/counts}}</tbody></table>
        </section>
        {{/page}}
        """
}
