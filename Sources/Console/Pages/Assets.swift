/// The console's one stylesheet and one script, served from the binary. The script only adds
/// live updates (Server-Sent Events); every page and form works without it.
enum Assets {
    static let stylesheet = """
        :root { --ink: #1b1b1f; --muted: #4a4a55; --line: #d0d0d8; --bg: #f6f6f8; --card: #ffffff; --accent: #0b57a4;
          --ok: #146c2e; --warn: #7a4b00; --bad: #a4141e; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
        * { box-sizing: border-box; }
        body { margin: 0; color: var(--ink); background: var(--bg); line-height: 1.45; }
        .skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; z-index: 2; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        header.top { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .6rem 1rem; background: #14213d; color: #fff; }
        header.top a { color: #fff; }
        .brand { font-weight: 700; font-size: 1.15rem; text-decoration: none; }
        nav ul { display: flex; flex-wrap: wrap; gap: .25rem .9rem; list-style: none; margin: 0; padding: 0; }
        nav a { text-decoration: none; padding: .2rem 0; }
        nav a[aria-current="page"] { border-bottom: 2px solid #fff; font-weight: 600; }
        header .logout { margin-left: auto; }
        header .logout button { color: #fff; border-color: #fff; background: transparent; }
        main { max-width: 62rem; margin: 0 auto; padding: 1rem; }
        h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
        h2 { font-size: 1.2rem; margin: 0 0 .6rem; }
        h3 { font-size: 1.05rem; }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1rem; margin-bottom: 1rem; }
        .card.about { display: flex; flex-wrap: wrap; align-items: center; gap: 0 1.2rem; } .card.about div { flex: 1 1 20rem; }
        .columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); gap: 0 1rem; }
        table { width: 100%; border-collapse: collapse; }
        th, td { text-align: left; padding: .35rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        td.number, th.number { text-align: right; }
        table.log { font-size: .92rem; } table.log td.name { word-break: break-all; }
        tr.blocked td { color: var(--bad); }
        .detail { color: var(--muted); font-size: .9rem; }
        .status { font-weight: 600; } .status.ok { color: var(--ok); } .status.off { color: var(--bad); } .status.warn { color: var(--warn); }
        .notice { padding: .5rem .75rem; border-radius: 6px; border: 1px solid var(--line); background: #fff; }
        .notice.success { border-color: var(--ok); color: var(--ok); } .notice.error { border-color: var(--bad); color: var(--bad); }
        .notice.warning { border-color: var(--warn); color: var(--warn); } .notice.info { border-color: var(--accent); color: var(--accent); }
        .field-error { color: var(--bad); margin: .2rem 0 .6rem; }
        dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
        dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; }
        label { display: block; margin: .6rem 0 .2rem; font-weight: 600; }
        .choice label, fieldset.inline label, form.inline label, .inline-label { display: inline; font-weight: normal; margin: 0 .8rem 0 .3rem; }
        input, select, textarea { font: inherit; padding: .4rem .5rem; border: 1px solid #767680; border-radius: 5px; max-width: 100%; }
        input[type="url"], input[name="site"], input[name="url"], input[name="page"], textarea { width: 100%; }
        textarea { font-family: ui-monospace, monospace; }
        fieldset { border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; }
        button, a.button { display: inline-block; font: inherit; padding: .4rem .9rem; margin: .4rem .4rem .2rem 0; border-radius: 5px;
          border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; }
        button.quiet { background: #fff; color: var(--accent); }
        button.danger { background: #fff; color: var(--bad); border-color: var(--bad); }
        button.small { padding: .15rem .5rem; margin: 0; font-size: .85rem; }
        a { color: var(--accent); }
        .row { display: flex; flex-wrap: wrap; gap: 0 .3rem; align-items: center; }
        [hidden] { display: none !important; }
        .row form { display: inline; }
        form.inline { display: flex; flex-wrap: wrap; align-items: center; gap: .3rem; }
        ul.lists { list-style: none; padding: 0; margin: 0; }
        li.list { border-bottom: 1px solid var(--line); padding: .6rem 0; } li.list p { margin: .2rem 0; }
        .location { word-break: break-all; }
        .badge { font-size: .8rem; border: 1px solid var(--muted); border-radius: 1rem; padding: 0 .5rem; color: var(--muted); }
        li.enabled .badge { border-color: var(--ok); color: var(--ok); }
        ul.attention { padding-left: 1.2rem; } ul.attention form { display: inline; }
        ol.top li { display: flex; justify-content: space-between; gap: 1rem; } ol.top .name { word-break: break-all; }
        .verdict { margin-top: 1rem; padding: .75rem; border-radius: 6px; border: 2px solid var(--line); }
        .verdict.blocked { border-color: var(--bad); } .verdict.allowed { border-color: var(--ok); }
        pre { background: #f0f0f4; padding: .6rem; overflow-x: auto; border-radius: 5px; }
        svg.chart { width: 100%; height: auto; max-height: 14rem; }
        svg.chart .total { fill: #9db8d9; } svg.chart .blocked { fill: var(--bad); } svg.chart text { fill: var(--muted); font-size: 10px; }
        .wrap { overflow-wrap: anywhere; } .wide { width: 100%; } .scroll { overflow-x: auto; }
        ol.steps { display: flex; flex-wrap: wrap; gap: .3rem 1.5rem; list-style-position: inside; padding: 0; margin: 0 0 1rem; color: var(--muted); }
        ol.steps li.current { color: var(--ink); font-weight: 700; } ol.steps li.done { color: var(--ok); }
        ul.entries { list-style: none; padding: 0; margin: 0; }
        ul.entries li { display: flex; flex-wrap: wrap; align-items: center; gap: .4rem .8rem; padding: .4rem 0; border-bottom: 1px solid var(--line); }
        ul.entries form { display: inline-flex; flex-wrap: wrap; align-items: center; gap: .3rem; }
        ul.links { display: flex; flex-wrap: wrap; gap: .5rem; list-style: none; margin: 0; padding: 0; }
        article.submission { border-top: 1px solid var(--line); padding-top: .6rem; margin-top: .6rem; }
        .verdict.block, .verdict.junk { border-color: var(--bad); } .verdict.allow { border-color: var(--ok); }
        .verdict.identify, .verdict.promotion, .verdict.transaction { border-color: var(--warn); }
        code#new-key { display: block; font-size: 1.05rem; padding: .5rem; background: #f0f0f4; border-radius: 5px; }
        footer { max-width: 62rem; margin: 0 auto; padding: 0 1rem 2rem; color: var(--muted); font-size: .85rem; }
        @media (max-width: 40rem) { table.log th:nth-child(2), table.log td:nth-child(2), table.log th:nth-child(4), table.log td:nth-child(4) { display: none; } }
        """

    static let script = """
        "use strict";
        // Live updates only: every page works without this script.
        (function () {
          var csrf = (document.querySelector('meta[name="csrf"]') || {}).content || "";

          // "Update now": follow the update as it happens, then show the result.
          var update = document.querySelector("[data-update-events]");
          if (update && update.getAttribute("data-running") === "true" && window.EventSource) {
            var status = document.getElementById("update-status");
            var body = document.querySelector("#update-table tbody");
            var rowFor = function (name) {
              var row = body.querySelector('tr[data-list="' + CSS.escape(name) + '"]');
              if (!row) {
                row = document.createElement("tr");
                row.setAttribute("data-list", name);
                var head = document.createElement("th");
                head.scope = "row";
                head.textContent = name;
                row.appendChild(head);
                row.appendChild(document.createElement("td"));
                body.appendChild(row);
              }
              return row.lastChild;
            };
            var source = new EventSource(update.getAttribute("data-update-events"));
            source.onmessage = function (message) {
              var event = JSON.parse(message.data);
              if (event.list) { rowFor(event.list).textContent = event.text; }
              if (event.status) { status.textContent = event.status; }
              if (event.done) { source.close(); window.location.reload(); }
            };
          }

          // "Use my current location" (a strike report's step 3, the GPS snapshot): the browser's
          // position, sent only when the person clicks, in the form's here.latitude and
          // here.longitude with go=here. Without a script or geolocation the button stays hidden.
          Array.prototype.forEach.call(document.querySelectorAll("[data-current-location]"), function (button) {
            if (!navigator.geolocation) { return; }
            button.hidden = false;
            button.addEventListener("click", function () {
              var form = button.form;
              var status = document.getElementById(button.getAttribute("data-current-location"));
              status.textContent = "Asking your browser where you are…";
              navigator.geolocation.getCurrentPosition(function (position) {
                form.querySelector('input[name="here.latitude"]').value = String(position.coords.latitude);
                form.querySelector('input[name="here.longitude"]').value = String(position.coords.longitude);
                var go = document.createElement("input");
                go.type = "hidden";
                go.name = "go";
                go.value = "here";
                form.appendChild(go);
                form.submit();
              }, function (error) {
                status.textContent = "Your browser gave no position (" + error.message + "): look an address up, or type the coordinates.";
              }, { enableHighAccuracy: true, timeout: 20000, maximumAge: 0 });
            });
          });

          // The DNS query log: new queries appear at the top as they are answered.
          var log = document.getElementById("query-log");
          if (log && log.getAttribute("data-tail") === "true" && window.EventSource) {
            var tbody = log.querySelector("tbody");
            var params = new URLSearchParams({ after: log.getAttribute("data-after"), search: log.getAttribute("data-search"),
              blocked: log.getAttribute("data-blocked") });
            var tail = new EventSource("/dns/log/events?" + params.toString());
            var cell = function (row, text, className) {
              var td = document.createElement("td");
              td.textContent = text;
              if (className) { td.className = className; }
              row.appendChild(td);
              return td;
            };
            var actionForm = function (action, name, label, quiet) {
              var form = document.createElement("form");
              form.method = "post";
              form.action = "/dns/" + action;
              [["csrf", csrf], ["name", name], ["back", "/dns"]].forEach(function (pair) {
                var input = document.createElement("input");
                input.type = "hidden";
                input.name = pair[0];
                input.value = pair[1];
                form.appendChild(input);
              });
              var button = document.createElement("button");
              button.type = "submit";
              button.className = quiet ? "small quiet" : "small";
              button.textContent = label;
              form.appendChild(button);
              return form;
            };
            tail.onmessage = function (message) {
              JSON.parse(message.data).forEach(function (entry) {
                var row = document.createElement("tr");
                if (entry.blocked) { row.className = "blocked"; }
                cell(row, entry.time);
                cell(row, entry.client);
                cell(row, entry.name, "name");
                cell(row, entry.type);
                cell(row, entry.outcome);
                var actions = cell(row, "");
                if (entry.action === "allow") { actions.appendChild(actionForm("allow", entry.name, "Allow", false)); }
                else if (entry.action === "block") { actions.appendChild(actionForm("block", entry.name, "Block", true)); }
                else if (entry.note) { actions.textContent = entry.note; actions.className = "detail"; }
                tbody.insertBefore(row, tbody.firstChild);
                while (tbody.rows.length > 200) { tbody.deleteRow(tbody.rows.length - 1); }
              });
            };
          }
        })();
        """
}
