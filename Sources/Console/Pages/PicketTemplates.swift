/// The templates of the labor-action and moderation pages (see ``Templates`` for the conventions).
extension Templates {
    /// One form field (`FieldView`): a label, the control, a hint and its error.
    static let field = """
        <label for="{{id}}">{{label}}</label>
        {{#isSelect}}<select id="{{id}}" name="{{name}}" class="wide"{{#error}} aria-invalid="true" aria-describedby="{{id}}-error"{{/error}}>{{#options}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/options}}</select>{{/isSelect}}
        {{^isSelect}}{{#isTextArea}}<textarea id="{{id}}" name="{{name}}" rows="4" class="wide"{{#required}} required{{/required}}{{#error}} aria-invalid="true" aria-describedby="{{id}}-error"{{/error}}>{{value}}</textarea>{{/isTextArea}}
        {{^isTextArea}}<input id="{{id}}" name="{{name}}" type="{{type}}" value="{{value}}" class="wide"{{#inputMode}} inputmode="{{inputMode}}"{{/inputMode}}{{#required}} required{{/required}}{{#error}} aria-invalid="true" aria-describedby="{{id}}-error"{{/error}}>{{/isTextArea}}{{/isSelect}}
        {{#hint}}<p class="detail">{{hint}}</p>{{/hint}}
        {{#error}}<p class="field-error" id="{{id}}-error">{{error}}</p>{{/error}}
        """

    static let picket = """
        {{#page}}
        <nav class="card" aria-label="Labor actions"><ul class="links"><li><a class="button" href="/picket/report">Report a strike</a></li><li><a class="button" href="/picket/snapshot">Send a GPS snapshot</a></li></ul></nav>
        <section class="card" aria-labelledby="server-title">
        <h2 id="server-title">Picket server</h2>
        {{#hasServer}}<p class="status ok" id="server-state">Reporting to {{address}} with the key {{maskedKey}}.</p>{{/hasServer}}
        {{^hasServer}}<p class="status off" id="server-state">No Picket server yet: give its address and the API key its operator gave you.</p>{{/hasServer}}
        <form method="post" action="/picket/server">\(csrf)
        <label for="server">Server address</label>
        <input id="server" name="server" type="url" value="{{address}}" placeholder="https://picket.example.org" required{{#serverError}} aria-invalid="true" aria-describedby="server-error"{{/serverError}}>
        {{#serverError}}<p class="field-error" id="server-error">{{serverError}}</p>{{/serverError}}
        <label for="key">API key{{#hasServer}} (leave empty to keep {{maskedKey}}){{/hasServer}}</label>
        <input id="key" name="key" type="password" class="wide" autocomplete="off" spellcheck="false" placeholder="opl_…"{{#keyError}} aria-invalid="true" aria-describedby="key-error"{{/keyError}}>
        {{#keyError}}<p class="field-error" id="key-error">{{keyError}}</p>{{/keyError}}
        <button type="submit">Save and check</button>
        </form>
        {{#hasServer}}<form method="post" action="/picket/server/forget">\(csrf)<button type="submit" class="danger">Forget the server and key</button></form>{{/hasServer}}
        </section>
        <section class="card" aria-labelledby="policy-title">
        <h2 id="policy-title">Struck employers' sites and domains</h2>
        <form method="post" action="/picket/policy">\(csrf)
        <fieldset><legend>When a page or a DNS name belongs to a struck employer</legend>
        {{#policies}}<div class="choice"><input type="radio" id="policy-{{value}}" name="policy" value="{{value}}"{{#checked}} checked{{/checked}}><label for="policy-{{value}}">{{text}}</label></div>{{/policies}}
        </fieldset>
        <button type="submit">Save the policy</button>
        </form>
        <h3>Picket lists in force</h3>
        {{^sources}}<p id="no-sources">None: the policy applies once a Picket list is added.</p>{{/sources}}
        <ul class="entries" id="picket-sources">{{#sources}}<li><strong>{{name}}</strong> <span class="detail wrap">{{location}}</span> — {{state}}</li>{{/sources}}</ul>
        {{#hasServer}}<form method="post" action="/picket/blocklist">\(csrf)<button type="submit" class="quiet">Add this server's blocklist</button></form>{{/hasServer}}
        </section>
        {{/page}}
        """

    static let report = """
        {{#page}}
        <ol class="steps" aria-label="Steps">{{#steps}}<li{{#current}} aria-current="step" class="current"{{/current}}{{#done}} class="done"{{/done}}>{{title}}</li>{{/steps}}</ol>
        {{^hasServer}}<p class="notice warning">No Picket server is set: <a href="/picket">set it first</a>; you can fill the report in meanwhile.</p>{{/hasServer}}
        {{#isSubmitted}}<section class="card" aria-labelledby="done-title"><h2 id="done-title">Report sent</h2>
        <p id="receipt" role="status">{{receipt}}</p><p>A moderator checks it before anyone is told about it.</p>
        <form method="post" action="/picket/report/restart">\(csrf)<button type="submit">Report another strike</button></form></section>{{/isSubmitted}}
        {{#isReview}}<section class="card" aria-labelledby="review-title"><h2 id="review-title">Review and submit</h2>
        <dl class="facts" id="review">{{#review}}<dt>{{label}}</dt><dd class="wrap">{{value}}</dd>{{/review}}</dl>
        <div class="row">
        <form method="post" action="/picket/report/edit">\(csrf)<input type="hidden" name="step" value="employer"><button type="submit" class="quiet">Edit the employer</button></form>
        <form method="post" action="/picket/report/edit">\(csrf)<input type="hidden" name="step" value="action"><button type="submit" class="quiet">Edit the action</button></form>
        <form method="post" action="/picket/report/edit">\(csrf)<input type="hidden" name="step" value="location"><button type="submit" class="quiet">Edit the location</button></form>
        </div>
        <form method="post" action="/picket/report/submit">\(csrf)<button type="submit">Submit the report</button></form></section>{{/isReview}}
        {{^isReview}}{{^isSubmitted}}<section class="card" aria-labelledby="step-title">
        <h2 id="step-title">{{#isEmployer}}1. The employer{{/isEmployer}}{{#isAction}}2. The action{{/isAction}}{{#isLocation}}3. Where (optional){{/isLocation}}</h2>
        <form method="post" action="/picket/report/step" novalidate>\(csrf)<input type="hidden" name="step" value="{{step}}">
        {{#fields}}{{> field}}{{/fields}}
        {{#isLocation}}{{#found}}<p class="status ok" id="found" role="status">Found {{found}}</p>{{/found}}
        <input type="hidden" name="here.latitude" value=""><input type="hidden" name="here.longitude" value="">
        <div class="row"><button type="submit" name="go" value="lookup" class="quiet">Look up the address</button>
        <button type="button" class="quiet" id="report-here" data-current-location="report-here-status" hidden>Use my current location</button></div>
        <p class="detail" id="report-here-status" role="status"></p>{{/isLocation}}
        <div class="row">{{^isEmployer}}<button type="submit" name="go" value="back" class="quiet">Back</button>{{/isEmployer}}
        <button type="submit" name="go" value="next">{{#isLocation}}Review{{/isLocation}}{{^isLocation}}Next{{/isLocation}}</button></div>
        </form></section>{{/isSubmitted}}{{/isReview}}
        {{/page}}
        """

    static let snapshot = """
        {{#page}}
        {{^hasServer}}<p class="notice warning">No Picket server is set: <a href="/picket">set it first</a>.</p>{{/hasServer}}
        {{#receipt}}<section class="card" aria-labelledby="sent-title"><h2 id="sent-title">Snapshot sent</h2>
        <p id="receipt" role="status">{{receipt}}</p>
        <form method="post" action="/picket/snapshot/new">\(csrf)<button type="submit">Send another snapshot</button></form></section>{{/receipt}}
        {{^receipt}}{{#hasServer}}<section class="card" aria-labelledby="snapshot-title">
        <h2 id="snapshot-title">Where is the picket line?</h2>
        <form method="post" action="/picket/snapshot" novalidate>\(csrf)
        <fieldset{{#actionError}} aria-describedby="action-error"{{/actionError}}><legend>Active strike</legend>
        {{#strikesProblem}}<p class="notice error">{{strikesProblem}}</p>{{/strikesProblem}}
        {{#strikes}}<div class="choice"><input type="radio" id="strike-{{id}}" name="actionId" value="{{id}}"{{#checked}} checked{{/checked}}><label for="strike-{{id}}"><strong>{{title}}</strong> <span class="detail">{{detail}}</span></label></div>{{/strikes}}
        </fieldset>
        {{#actionError}}<p class="field-error" id="action-error">{{actionError}}</p>{{/actionError}}
        {{#fields}}{{> field}}{{/fields}}
        <input type="hidden" name="here.latitude" value=""><input type="hidden" name="here.longitude" value="">
        <div class="row"><button type="submit" name="go" value="lookup" class="quiet">Look up the address</button>
        <button type="submit" name="go" value="show" class="quiet">Show the point's address</button>
        <button type="button" class="quiet" id="snapshot-here" data-current-location="snapshot-here-status" hidden>Use my current location</button></div>
        <p class="detail" id="snapshot-here-status" role="status"></p>
        {{#shown}}<p class="status ok" id="shown" role="status">The point is at {{shown}}</p>{{/shown}}
        {{#pointNotShown}}<p class="status off" id="not-shown">The point's address is shown before the snapshot is sent.</p>{{/pointNotShown}}
        <button type="submit" name="go" value="submit">Send the snapshot</button>
        </form></section>{{/hasServer}}{{/receipt}}
        {{/page}}
        """

    static let moderation = """
        {{#page}}
        <nav class="card" aria-label="Moderation"><ul class="links"><li><a class="button quiet-link" href="/moderation/keys">API keys</a></li></ul>
        <p class="detail wrap">Store: {{store}}. Your decisions are recorded as <strong>{{moderator}}</strong>.</p></nav>
        {{#problem}}<p class="notice error">{{problem}}</p>{{/problem}}
        <section class="card" aria-labelledby="pending-title">
        <h2 id="pending-title">Waiting for a decision ({{pendingCount}})</h2>
        {{^pending}}<p id="nothing-pending">Nothing to moderate.</p>{{/pending}}
        {{#pending}}<article class="submission" id="submission-{{id}}" aria-labelledby="title-{{id}}">
        <h3 id="title-{{id}}" class="wrap">{{title}}</h3>
        <dl class="facts">{{#facts}}<dt>{{label}}</dt><dd class="wrap">{{value}}</dd>{{/facts}}</dl>
        <form method="post" action="/moderation/decide" class="inline">\(csrf)<input type="hidden" name="id" value="{{id}}">
        <label for="reason-{{id}}" class="inline-label">Reason (optional)</label><input id="reason-{{id}}" name="reason" maxlength="500">
        <button type="submit" name="decision" value="approve">Approve {{id}}</button>
        <button type="submit" name="decision" value="reject" class="danger">Reject {{id}}</button>
        </form></article>{{/pending}}
        </section>
        <section class="card" aria-labelledby="log-title">
        <h2 id="log-title">Decisions</h2>
        {{^log}}<p>No decision yet.</p>{{/log}}
        {{#hasLog}}<div class="scroll"><table id="moderation-log"><thead><tr><th scope="col">When (UTC)</th><th scope="col">Decision</th><th scope="col">What</th><th scope="col">Who</th><th scope="col">Reason</th></tr></thead><tbody>
        {{#log}}<tr><td>{{when}}</td><td>{{decision}}</td><td class="wrap">{{kind}} {{id}}: {{summary}}</td><td>{{moderator}}</td><td class="wrap">{{reason}}</td></tr>{{/log}}
        </tbody></table></div>{{/hasLog}}
        </section>
        {{/page}}
        """

    static let keys = """
        {{#page}}
        <p class="wrap"><a href="/moderation">Back to moderation</a> · Store: {{store}}</p>
        {{#created}}<section class="card created" aria-labelledby="created-title"><h2 id="created-title">New key {{id}}</h2>
        <p>Copy it now: it is shown only this once.</p><p><code id="new-key" class="wrap">{{key}}</code></p><p class="detail">Scopes: {{scopes}}</p></section>{{/created}}
        {{#presets}}<section class="card" aria-labelledby="preset-{{value}}-title">
        <h2 id="preset-{{value}}-title">A key {{purpose}}</h2>
        <p>{{explanation}}</p><p class="detail">Scopes: <code>{{scopes}}</code></p>
        <form method="post" action="/moderation/keys/create">\(csrf)<input type="hidden" name="preset" value="{{value}}">
        <label for="preset-{{value}}-label">Whose key (optional)</label>
        <input id="preset-{{value}}-label" name="label" maxlength="100" value="{{label}}"{{#labelError}} aria-invalid="true" aria-describedby="preset-{{value}}-error"{{/labelError}}>
        {{#labelError}}<p class="field-error" id="preset-{{value}}-error">{{labelError}}</p>{{/labelError}}
        <button type="submit">Create a key {{purpose}}</button>
        </form>
        </section>{{/presets}}
        <section class="card" aria-labelledby="create-title">
        <h2 id="create-title">Create a key with the scopes you choose</h2>
        <form method="post" action="/moderation/keys/create">\(csrf)
        <fieldset{{#scopesError}} aria-describedby="scopes-error"{{/scopesError}}><legend>What it may do</legend>
        {{#scopes}}<div class="choice"><input type="checkbox" id="scope-{{index}}" name="scope[]" value="{{value}}"><label for="scope-{{index}}"><code>{{value}}</code>: {{allows}}</label></div>{{/scopes}}
        </fieldset>
        {{#scopesError}}<p class="field-error" id="scopes-error">{{scopesError}}</p>{{/scopesError}}
        <label for="key-label">Whose key (optional)</label>
        <input id="key-label" name="label" maxlength="100" value="{{label}}"{{#labelError}} aria-invalid="true" aria-describedby="key-label-error"{{/labelError}}>
        {{#labelError}}<p class="field-error" id="key-label-error">{{labelError}}</p>{{/labelError}}
        <button type="submit">Create the key</button>
        </form>
        </section>
        <section class="card" aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        {{^keys}}<p>No key yet.</p>{{/keys}}
        {{#hasKeys}}<div class="scroll"><table id="key-table"><thead><tr><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Whose</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead><tbody>
        {{#keys}}<tr><th scope="row">{{id}}</th><td>{{scopes}}</td><td class="wrap">{{label}}</td><td>{{state}}</td>
        <td>{{#active}}<form method="post" action="/moderation/keys/revoke">\(csrf)<input type="hidden" name="id" value="{{id}}"><button type="submit" class="small danger">Revoke {{id}}</button></form>{{/active}}</td></tr>{{/keys}}
        </tbody></table></div>{{/hasKeys}}
        </section>
        {{/page}}
        """
}
