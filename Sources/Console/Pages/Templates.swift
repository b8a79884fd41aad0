/// The name of each of the console's templates: pages are rendered by one of these, never by a
/// string, so a misspelt name does not compile.
enum PageTemplate: String, CaseIterable, Sendable {
    /// The frame around every page: navigation, notices, footer.
    case layout
    /// A page that only explains why a request was refused or failed.
    case problem
    case login, start, setup, lists, update, rules, allowlist, dns, calls, messages, picket, report, snapshot, moderation, keys, backup
    /// A form field, included by the report and snapshot forms (`{{> field}}`).
    case field
}

/// The console's Mustache templates, embedded in the binary so that `pepper` runs from anywhere
/// (no resource bundle beside it). `{{x}}` escapes HTML; `{{{x}}}` is used only for HTML the
/// console made itself (a page inside the layout, the chart's SVG).
///
/// Every page template renders a context whose root has `csrf` (the session's form token) and
/// `page` (the page's view): forms inside `{{#page}}` still see `{{csrf}}`.
enum Templates {
    /// The text of `template`. The switch is exhaustive, so a template without text does not
    /// compile; `PageRenderer` parses every one at start, so a broken one stops the console
    /// from starting instead of rendering an empty page.
    static func text(of template: PageTemplate) -> String {
        switch template {
        case .layout: layout
        case .problem: problem
        case .login: login
        case .start: start
        case .setup: setup
        case .lists: lists
        case .update: update
        case .rules: rules
        case .allowlist: allowlist
        case .dns: dns
        case .calls: calls
        case .messages: messages
        case .picket: picket
        case .report: report
        case .snapshot: snapshot
        case .moderation: moderation
        case .keys: keys
        case .backup: backup
        case .field: field
        }
    }

    /// A hidden CSRF field, for every form that changes something.
    static let csrf = #"<input type="hidden" name="csrf" value="{{csrf}}">"#

    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="csrf" content="{{csrf}}">
        <title>{{title}} · Pepper</title>
        <link rel="stylesheet" href="/assets/console.css">
        <script src="/assets/console.js" defer></script>
        {{#noscriptRefresh}}<noscript><meta http-equiv="refresh" content="2"></noscript>{{/noscriptRefresh}}
        </head>
        <body>
        <a class="skip" href="#main">Skip to the content</a>
        <header class="top">
        <a class="brand" href="/">Pepper</a>
        {{#signedIn}}<nav aria-label="Sections"><ul>{{#nav}}<li><a href="{{path}}"{{#current}} aria-current="page"{{/current}}>{{label}}</a></li>{{/nav}}</ul></nav>
        <form method="post" action="/logout" class="logout">\(csrf)<button type="submit" class="quiet">Sign out</button></form>{{/signedIn}}
        </header>
        <main id="main">
        <h1>{{title}}</h1>
        <div id="notices" aria-live="polite">{{#notices}}<p class="notice {{kind}}">{{text}}</p>{{/notices}}</div>
        {{{content}}}
        </main>
        <footer><p>Pepper {{version}} · state in <code>{{home}}</code></p>
        {{#signedIn}}<form method="post" action="/logout/everywhere" class="everywhere">\(csrf)<button type="submit" class="quiet">Sign out everywhere</button> (every browser signed in to this console)</form>{{/signedIn}}</footer>
        </body>
        </html>
        """

    static let problem = """
        {{#page}}<p>{{text}}</p>{{#link}}<p><a class="button" href="{{path}}">{{label}}</a></p>{{/link}}{{/page}}
        """

    static let login = """
        {{#page}}<form method="post" action="/login" class="card">
        <p>This console is protected by a password (pepper console --password-file).</p>
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required{{#error}} aria-invalid="true" aria-describedby="password-error"{{/error}}>
        {{#error}}<p class="field-error" id="password-error">{{error}}</p>{{/error}}
        <label for="name">Your name (optional; moderation decisions are recorded with it)</label>
        <input id="name" name="name" autocomplete="username" maxlength="40">
        <button type="submit">Sign in</button>
        </form>{{/page}}
        """

    static let start = """
        {{#page}}
        <section aria-labelledby="protection-title" class="card">
        <h2 id="protection-title">Protection</h2>
        <p class="status {{statusClass}}">{{statusText}}</p>
        <dl class="facts">
        <dt>Lists in force</dt><dd>{{lists}}</dd>
        <dt>Rules</dt><dd>{{rules}}</dd>
        <dt>Compiled</dt><dd>{{compiledAt}}</dd>
        <dt>Last list update</dt><dd>{{lastUpdate}}</dd>
        <dt>DNS filter</dt><dd>{{dns}}</dd>
        </dl>
        </section>
        <section aria-labelledby="counts-title" class="card">
        <h2 id="counts-title">Today and the last 7 days</h2>
        <table>
        <thead><tr><th scope="col">What</th><th scope="col" class="number">Today</th><th scope="col" class="number">7 days</th></tr></thead>
        <tbody>{{#counts}}<tr><th scope="row">{{label}}</th><td class="number">{{today}}</td><td class="number">{{week}}{{#detail}}<br><span class="detail">{{detail}}</span>{{/detail}}</td></tr>{{/counts}}</tbody>
        </table>
        </section>
        <section aria-labelledby="attention-title" class="card">
        <h2 id="attention-title">Needs attention</h2>
        {{^hasAttention}}<p>Nothing needs attention.</p>{{/hasAttention}}
        {{#hasAttention}}<ul class="attention">{{#attention}}<li><span>{{text}}</span>
        {{#post}}<form method="post" action="{{action}}">\(csrf)<button type="submit">{{label}}</button></form>{{/post}}{{^post}}<a class="button" href="{{action}}">{{label}}</a>{{/post}}</li>{{/attention}}</ul>{{/hasAttention}}
        </section>
        {{/page}}
        """

    static let setup = """
        {{#page}}
        <section class="card about" aria-labelledby="about-title">
        <img src="/assets/onboarding.svg" width="160" height="160" id="onboarding-animation" alt="A shield rises over a web page and its ads disappear.">
        <div><h2 id="about-title">What Pepper does</h2>
        <p>Pepper blocks ads and trackers in web pages with filter lists, turned into the content-blocking rules WebKit browsers load; it can filter DNS for the whole machine; and it keeps your allowlist and your own rules in one place for every browser it serves.</p></div>
        </section>
        <section class="card" aria-labelledby="lists-title">
        <h2 id="lists-title">1. Choose lists</h2>
        <form method="post" action="/setup/lists">\(csrf)
        <fieldset><legend>Lists to use</legend>
        {{#lists}}<div class="choice"><input type="checkbox" id="list-{{name}}" name="lists[]" value="{{name}}"{{#enabled}} checked{{/enabled}}>
        <label for="list-{{name}}"><strong>{{name}}</strong> — {{summary}}{{^downloaded}} <span class="detail">(not downloaded yet)</span>{{/downloaded}}</label></div>{{/lists}}
        </fieldset>
        <button type="submit">Use these lists</button>
        </form>
        </section>
        <section class="card" aria-labelledby="gnome-title">
        <h2 id="gnome-title">2. Use the blocker in GNOME Web</h2>
        {{#browser}}
        {{#notInstalled}}<p class="status off">{{name}} is not installed here ({{notInstalled}}). Install it (Debian and Ubuntu: <code>sudo apt install epiphany-browser</code>), then come back.</p>{{/notInstalled}}
        {{^notInstalled}}
        {{#installed}}<p class="status ok" id="gnome-web-state">Installed: {{name}} loads Pepper's {{fileCount}}.</p>{{/installed}}
        {{^installed}}<p class="status off" id="gnome-web-state">Not installed: {{name}} loads {{currentCount}}.</p>{{/installed}}
        {{#problem}}<p class="notice error">{{problem}}</p>{{/problem}}
        <form method="post" action="/setup/gnome-web">\(csrf)<button type="submit">{{#installed}}Set {{name}} up again{{/installed}}{{^installed}}Use Pepper's lists in {{name}}{{/installed}}</button></form>
        <p class="detail">Pepper sets {{name}}'s content filters to its files in <code>{{outputPath}}</code> and turns its ad blocking on, then reads the settings back. It keeps them right when the number of files changes.</p>
        {{/notInstalled}}
        {{/browser}}
        {{^browser}}<p>Pepper cannot change browser settings on this system.</p>{{/browser}}
        <h3>Pepper's own browser</h3>
        {{#pepperBrowser}}<p class="status {{statusClass}}">{{statusText}}</p><p class="detail">Start it with <code>pepper browse</code>; it always loads <code>{{outputPath}}</code>.</p>{{/pepperBrowser}}
        </section>
        <section class="card" aria-labelledby="dns-title">
        <h2 id="dns-title">3. Filter DNS for the whole machine</h2>
        {{#dns}}
        <p class="status {{statusClass}}">{{statusText}}</p>
        <p>Run the DNS filter (<code>pepper dns serve --listen {{address}}</code>), then send this machine's DNS to it with a systemd-resolved drop-in at <code>{{dropInPath}}</code>:</p>
        <pre><code>{{dropIn}}</code></pre>
        <form method="post" action="/setup/dns-check" class="inline">\(csrf)
        <label for="dns-address">DNS filter address</label>
        <input id="dns-address" name="address" value="{{address}}" inputmode="url"{{#addressError}} aria-invalid="true" aria-describedby="dns-address-error"{{/addressError}}>
        <button type="submit">Check now</button>
        </form>
        {{#addressError}}<p class="field-error" id="dns-address-error">{{addressError}}</p>{{/addressError}}
        {{/dns}}
        </section>
        {{#search}}
        <section class="card" aria-labelledby="search-title">
        <h2 id="search-title">4. A private search engine</h2>
        <p>DuckDuckGo does not track your searches. Pepper's browser uses {{pepperEngine}}{{#gnomeEngine}}; GNOME Web uses {{gnomeEngine}}{{/gnomeEngine}}.</p>
        {{^answered}}<div class="row"><form method="post" action="/setup/duckduckgo">\(csrf)<button type="submit">Use DuckDuckGo</button></form>
        <form method="post" action="/setup/duckduckgo/dismiss">\(csrf)<button type="submit" class="quiet">No, thanks</button></form></div>{{/answered}}
        {{#answered}}<p class="detail">You answered this suggestion; it is not shown elsewhere again.</p>{{/answered}}
        </section>
        {{/search}}
        <form method="post" action="/setup/finish" class="card">\(csrf)<button type="submit">{{#done}}Back to the start{{/done}}{{^done}}Finish setting up{{/done}}</button></form>
        {{/page}}
        """

    static let lists = """
        {{#page}}
        <section class="card" aria-labelledby="update-title">
        <h2 id="update-title">Updates</h2>
        <p>{{schedule}}</p>
        <p>{{nextDue}}</p>
        {{#lastUpdate}}<p class="notice {{kind}}">Last update from this console: {{text}}</p>{{/lastUpdate}}
        <form method="post" action="/lists/update">\(csrf)<button type="submit">Update now</button></form>
        </section>
        <section class="card" aria-labelledby="catalogue-title">
        <h2 id="catalogue-title">Lists</h2>
        <ul class="lists">{{#lists}}<li class="list {{#enabled}}enabled{{/enabled}}">
        <div class="list-head"><strong>{{name}}</strong> <span class="badge">{{state}}</span> <span class="detail">{{format}}</span></div>
        <p class="detail location">{{location}}</p>
        <p>{{downloaded}}{{#rulesText}} · {{rulesText}}{{/rulesText}}</p>
        {{#lastError}}<p class="notice error">Last update failed: {{lastError}} The last good copy is in use.</p>{{/lastError}}
        {{#hasSkipped}}<details><summary>{{skippedText}}</summary><ul>{{#skipped}}<li><code>{{reason}}</code>: {{count}}</li>{{/skipped}}</ul></details>{{/hasSkipped}}
        {{#categories}}<details class="categories"{{#open}} open{{/open}}><summary>{{summary}}</summary>
        <form method="post" action="/lists/categories">\(csrf)<input type="hidden" name="name" value="{{name}}">
        <fieldset{{#error}} aria-describedby="{{errorID}}"{{/error}}><legend>Block the trackers of these categories</legend>
        {{#items}}<div class="choice"><input type="checkbox" id="{{id}}" name="categories[]" value="{{categoryName}}"{{#chosen}} checked{{/chosen}}>
        <label for="{{id}}">{{categoryName}} <span class="detail">({{domains}})</span></label></div>{{/items}}
        </fieldset>
        {{#error}}<p class="field-error" id="{{errorID}}">{{error}}</p>{{/error}}
        <button type="submit">Block these categories</button>
        </form>
        {{^isDefault}}<form method="post" action="/lists/categories/default">\(csrf)<input type="hidden" name="name" value="{{name}}"><button type="submit" class="quiet">Use the default categories</button></form>{{/isDefault}}
        </details>{{/categories}}
        {{#categoriesPending}}<p class="detail">Its categories can be chosen once it is downloaded.</p>{{/categoriesPending}}
        <div class="row">
        {{#enabled}}<form method="post" action="/lists/disable">\(csrf)<input type="hidden" name="name" value="{{name}}"><button type="submit" class="quiet">Disable</button></form>{{/enabled}}
        {{^enabled}}<form method="post" action="/lists/enable">\(csrf)<input type="hidden" name="name" value="{{name}}"><button type="submit">Enable</button></form>{{/enabled}}
        {{^builtIn}}<form method="post" action="/lists/remove">\(csrf)<input type="hidden" name="name" value="{{name}}"><button type="submit" class="danger">Remove {{name}}</button></form>{{/builtIn}}
        </div></li>{{/lists}}</ul>
        {{#myRules}}<p><a href="/rules">My rules</a>: {{myRules}}</p>{{/myRules}}
        </section>
        <section class="card" aria-labelledby="add-title">
        <h2 id="add-title">Add a list</h2>
        <form method="post" action="/lists/add">\(csrf)
        <label for="add-url">Address of the list</label>
        <input id="add-url" name="url" type="url" value="{{addURL}}" placeholder="https://example.org/list.txt" required{{#urlError}} aria-invalid="true" aria-describedby="add-url-error"{{/urlError}}>
        {{#urlError}}<p class="field-error" id="add-url-error">{{urlError}}</p>{{/urlError}}
        <label for="add-name">Name (optional)</label>
        <input id="add-name" name="name" value="{{addName}}" pattern="[a-z0-9._-]+"{{#nameError}} aria-invalid="true" aria-describedby="add-name-error"{{/nameError}}>
        {{#nameError}}<p class="field-error" id="add-name-error">{{nameError}}</p>{{/nameError}}
        <button type="submit">Add the list</button>
        </form>
        <form method="post" action="/lists/upload" enctype="multipart/form-data">\(csrf)
        <label for="upload-file">Or upload a list file (at most {{uploadLimit}})</label>
        <input id="upload-file" name="file" type="file" accept=".txt,.json,.list,.hosts,text/plain"{{#fileError}} aria-invalid="true" aria-describedby="upload-file-error"{{/fileError}}>
        {{#fileError}}<p class="field-error" id="upload-file-error">{{fileError}}</p>{{/fileError}}
        <button type="submit">Upload</button>
        </form>
        </section>
        {{/page}}
        """

    static let update = """
        {{#page}}
        <section class="card" aria-labelledby="progress-title" data-update-events="/lists/update/events" data-running="{{running}}">
        <h2 id="progress-title">{{heading}}</h2>
        <p id="update-status" role="status">{{status}}</p>
        <table id="update-table">
        <thead><tr><th scope="col">List</th><th scope="col">Result</th></tr></thead>
        <tbody>{{#rows}}<tr data-list="{{name}}"><th scope="row">{{name}}</th><td>{{result}}</td></tr>{{/rows}}</tbody>
        </table>
        {{^running}}<form method="post" action="/lists/update">\(csrf)<button type="submit">Update again</button></form>{{/running}}
        <p><a href="/lists">Back to the lists</a></p>
        </section>
        {{/page}}
        """

    static let rules = """
        {{#page}}
        <section class="card" aria-labelledby="rules-title">
        <h2 id="rules-title">Your rules</h2>
        <p>One rule per line, in Adblock Plus syntax: <code>||ads.example^</code> blocks a domain, <code>@@||example.com^</code> allows it, <code>example.com##.banner</code> hides elements. Lines starting with <code>!</code> are comments. They apply to the content blocker and the DNS filter like any list.</p>
        <form method="post" action="/rules">\(csrf)
        <label for="rules-text">My rules</label>
        <textarea id="rules-text" name="rules" rows="14" spellcheck="false"{{#hasProblems}} aria-invalid="true" aria-describedby="rules-problems"{{/hasProblems}}>{{text}}</textarea>
        {{#hasProblems}}<div id="rules-problems" class="field-error"><p>These lines cannot be used:</p><ol class="problems">{{#problems}}<li><code>{{text}}</code>: {{problem}}</li>{{/problems}}</ol></div>{{/hasProblems}}
        <button type="submit">Save my rules</button>
        </form>
        <p class="detail">Also from the command line: <code>pepper rules add RULE</code>, <code>pepper rules remove RULE</code>, <code>pepper rules list</code>.</p>
        </section>
        {{/page}}
        """

    static let allowlist = """
        {{#page}}
        <section class="card" aria-labelledby="allow-title">
        <h2 id="allow-title">Sites where nothing is blocked</h2>
        <form method="post" action="/allowlist/add">\(csrf)
        <label for="allow-site">Site (a domain, or paste an address)</label>
        <input id="allow-site" name="site" value="{{site}}" required placeholder="example.com"{{#siteError}} aria-invalid="true" aria-describedby="allow-site-error"{{/siteError}}>
        {{#siteError}}<p class="field-error" id="allow-site-error">{{siteError}}</p>{{/siteError}}
        <fieldset class="inline"><legend>For how long</legend>
        <input type="radio" id="for-always" name="for" value="always" checked><label for="for-always">For good</label>
        <input type="radio" id="for-day" name="for" value="24h"><label for="for-day">For 24 hours</label>
        </fieldset>
        <button type="submit">Allow this site</button>
        </form>
        {{^hasEntries}}<p>No site is allowlisted.</p>{{/hasEntries}}
        {{#hasEntries}}<table><thead><tr><th scope="col">Site</th><th scope="col">Until</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead><tbody>
        {{#entries}}<tr><th scope="row">{{domain}}{{#unicode}} <span class="detail">({{unicode}})</span>{{/unicode}}</th><td>{{until}}</td>
        <td><form method="post" action="/allowlist/remove">\(csrf)<input type="hidden" name="domain" value="{{domain}}"><button type="submit" class="quiet">Protect {{domain}} again</button></form></td></tr>{{/entries}}
        </tbody></table>{{/hasEntries}}
        </section>
        <section class="card" aria-labelledby="check-title">
        <h2 id="check-title">Check a URL</h2>
        <form method="get" action="/allowlist">
        <label for="check-url">Address of the request</label>
        <input id="check-url" name="url" type="url" value="{{checkURL}}" required placeholder="https://ads.example/banner.js"{{#urlError}} aria-invalid="true" aria-describedby="check-url-error"{{/urlError}}>
        {{#urlError}}<p class="field-error" id="check-url-error">{{urlError}}</p>{{/urlError}}
        <label for="check-page">Page making it (optional)</label>
        <input id="check-page" name="page" type="url" value="{{checkPage}}" placeholder="https://news.example/"{{#pageError}} aria-invalid="true" aria-describedby="check-page-error"{{/pageError}}>
        {{#pageError}}<p class="field-error" id="check-page-error">{{pageError}}</p>{{/pageError}}
        <label for="check-type">Request type</label>
        <select id="check-type" name="type">{{#types}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/types}}</select>
        <button type="submit">Check</button>
        </form>
        {{#result}}<div class="verdict {{decisionClass}}" id="verdict" role="status">
        <p><strong>{{decision}}</strong> — {{explanation}}</p>
        {{#rule}}<p><code>{{rule}}</code></p><p class="detail">from {{list}}, line {{line}}</p>{{/rule}}
        {{#overridden}}<p class="detail">It overrides <code>{{overridden}}</code>.</p>{{/overridden}}
        <p class="detail">{{type}} request to {{url}}{{#page}} from {{page}}{{/page}}</p>
        </div>{{/result}}
        </section>
        {{/page}}
        """

    static let dns = """
        {{#page}}
        <section class="card" aria-labelledby="dns-state-title">
        <h2 id="dns-state-title">Last 24 hours</h2>
        <p class="status {{statusClass}}">{{statusText}}</p>
        <p>{{total}}, {{blocked}} blocked ({{blockedPercent}}).</p>
        {{{chart}}}
        </section>
        <div class="columns">
        <section class="card" aria-labelledby="top-blocked-title">
        <h2 id="top-blocked-title">Blocked most</h2>
        {{^topBlocked}}<p>Nothing blocked in the last 24 hours.</p>{{/topBlocked}}
        <ol class="top">{{#topBlocked}}<li><span class="name">{{name}}</span> <span class="count">{{count}}</span></li>{{/topBlocked}}</ol>
        </section>
        <section class="card" aria-labelledby="top-clients-title">
        <h2 id="top-clients-title">Clients asking most</h2>
        {{^topClients}}<p>No queries in the last 24 hours.</p>{{/topClients}}
        <ol class="top">{{#topClients}}<li><span class="name">{{name}}</span> <span class="count">{{count}}</span></li>{{/topClients}}</ol>
        </section>
        </div>
        <p class="detail" id="top-lists-counted">{{topListsCounted}}</p>
        <section class="card" aria-labelledby="log-title">
        <h2 id="log-title">Query log</h2>
        <form method="get" action="/dns" class="inline">
        <label for="log-search">Name contains</label>
        <input id="log-search" name="search" value="{{search}}" type="search">
        <input type="checkbox" id="log-blocked" name="blocked" value="1"{{#blockedOnly}} checked{{/blockedOnly}}><label for="log-blocked">Blocked only</label>
        <button type="submit">Show</button>
        </form>
        <table class="log" id="query-log" data-tail="{{tail}}" data-after="{{latest}}" data-search="{{search}}" data-blocked="{{blockedFlag}}">
        <thead><tr><th scope="col">Time (UTC)</th><th scope="col">Client</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Outcome</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
        <tbody>{{#rows}}<tr class="{{#blocked}}blocked{{/blocked}}"><td>{{time}}</td><td>{{client}}</td><td class="name">{{name}}</td><td>{{type}}</td><td>{{outcome}}</td>
        <td>{{#allow}}<form method="post" action="/dns/allow">\(csrf)<input type="hidden" name="name" value="{{name}}"><input type="hidden" name="back" value="{{back}}"><button type="submit" class="small">Allow</button></form>{{/allow}}{{#block}}<form method="post" action="/dns/block">\(csrf)<input type="hidden" name="name" value="{{name}}"><input type="hidden" name="back" value="{{back}}"><button type="submit" class="small quiet">Block</button></form>{{/block}}{{#note}}<span class="detail">{{note}}</span>{{/note}}</td></tr>{{/rows}}</tbody>
        </table>
        {{^rows}}<p>No query matches.</p>{{/rows}}
        <p class="pages">{{#newer}}<a href="{{newer}}">Newest</a>{{/newer}} {{#older}}<a href="{{older}}">Older</a>{{/older}}</p>
        </section>
        <section class="card" aria-labelledby="groups-title">
        <h2 id="groups-title">Client groups</h2>
        {{#groupsProblem}}<p class="notice error">{{groupsProblem}}</p>{{/groupsProblem}}
        {{^groups}}<p>{{noGroups}}</p>{{/groups}}
        {{#hasGroups}}<table><thead><tr><th scope="col">Group</th><th scope="col">Clients</th><th scope="col">Lists</th><th scope="col">Allowlist</th></tr></thead><tbody>
        {{#groups}}<tr><th scope="row">{{name}}</th><td>{{clients}}</td><td>{{lists}}</td><td>{{allowlist}}</td></tr>{{/groups}}</tbody></table>{{/hasGroups}}
        </section>
        {{#away}}<section class="card" aria-labelledby="away-title" id="away">
        <h2 id="away-title">Phones and laptops away from home</h2>
        {{^serving}}<p class="status off" id="away-not-serving">{{notServing}}</p>{{/serving}}
        {{#serving}}<p>Give each device a name of its own: its encrypted DNS carries it, so the query log and client groups know which device asks, on any network. An iPhone, iPad or Mac installs the profile; Android takes the Private DNS host name.</p>
        <form method="get" action="/dns" class="inline" id="away-form">
        <label for="away-device">Device name</label>
        <input id="away-device" name="device" value="{{device}}" autocapitalize="none" spellcheck="false"{{#deviceError}} aria-invalid="true" aria-describedby="away-device-error"{{/deviceError}}>
        <label for="away-protocol">Protocol</label>
        <select id="away-protocol" name="protocol"{{#protocolError}} aria-invalid="true" aria-describedby="away-protocol-error"{{/protocolError}}>{{#protocols}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/protocols}}</select>
        <button type="submit">Show addresses</button>
        <button type="submit" formaction="/dns/profile" class="quiet">Download profile</button>
        </form>
        {{#deviceError}}<p class="field-error" id="away-device-error">{{deviceError}}</p>{{/deviceError}}
        {{#protocolError}}<p class="field-error" id="away-protocol-error">{{protocolError}}</p>{{/protocolError}}
        {{#addresses}}<dl class="facts" id="away-addresses">
        <dt>DNS over HTTPS</dt><dd><code>{{httpsURL}}</code></dd>
        <dt>DNS over TLS</dt><dd><code>{{tlsName}}</code></dd>
        <dt>Android Private DNS</dt><dd><code>{{android}}</code></dd>
        </dl>
        <p><a href="{{download}}" download="{{fileName}}" id="away-download">Download {{fileName}}</a></p>
        <p class="detail">{{note}}</p>{{/addresses}}{{/serving}}
        </section>{{/away}}
        {{/page}}
        """
}
