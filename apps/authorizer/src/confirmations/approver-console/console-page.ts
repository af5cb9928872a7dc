// The approver console's page: static HTML, script and style served by the authorizer itself (no
// build step, no framework, nothing from another origin; the CSP allows only 'self'). Everything
// shown is written with textContent, so a payload cannot inject markup, and passes through
// `visible`, so a bidirectional control or an invisible character cannot disguise it. Every URL
// is relative to the page's own, so the console works under a proxy's path prefix (ADR 0069).
import { escapeMatches, HIDDEN_CODE_POINTS } from '../list-confirmations/hidden-characters';

/** How approvers may sign in here: the page offers only these. */
export interface SignInOptions {
  devSignIn: boolean;
  tokenSignIn: boolean;
  /** Trusted issuers with an OpenID Connect client for the console (ADR 0071). */
  oidcIssuers: string[];
}

/** For text put into the page's markup (issuer names, a refusal's words). */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const oidcLinks = (issuers: string[]) =>
  issuers.map((i) => `  <p><a class="oidc-sign-in" href="console/oidc/start?issuer=${encodeURIComponent(i)}">Sign in with ${escapeHtml(i)}</a></p>\n`).join('');

const tokenForm = (o: SignInOptions) =>
  o.tokenSignIn || o.devSignIn
    ? `  <form id="sign-in-form" method="post" action="#">
${o.tokenSignIn ? `    <label for="token">Paste your approver token (it is sent once, in the request body, and never kept by this page)</label>
    <textarea id="token" rows="4" autocomplete="off" spellcheck="false"></textarea>
    <button type="submit" id="sign-in-button">Sign in</button>
` : ''}    <button type="button" id="dev-sign-in" hidden>Dev sign-in (local only)</button>
  </form>
`
    : '';

export const consoleHtml = (o: SignInOptions) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Arvis approver console</title>
<link rel="stylesheet" href="console/console.css">
<script src="console/console.js" defer></script>
</head>
<body data-dev-sign-in="${o.devSignIn ? 'true' : 'false'}">
<header><h1>Approver console</h1><p id="who"></p><button id="sign-out" hidden>Sign out</button></header>
<main>
<section id="sign-in">
  <h2>Sign in</h2>
${oidcLinks(o.oidcIssuers)}${tokenForm(o)}  <p id="sign-in-error" role="alert"></p>
</section>
<section id="pending" hidden>
  <h2>Pending confirmations <span id="live"></span></h2>
  <p id="empty">Nothing is waiting for you.</p>
  <ol id="confirmations"></ol>
</section>
<section id="results" hidden><h2>Your verdicts</h2><ol id="verdicts"></ol>
  <h3>How they ended (from the journal)</h3><ol id="outcomes"></ol></section>
<section id="history" hidden>
  <h2>History</h2>
  <form id="history-form" action="#">
    <label>Tool <input id="history-tool" autocomplete="off"></label>
    <label>Requester <input id="history-requester" autocomplete="off"></label>
    <label>Outcome <select id="history-outcome"><option value="">any</option><option value="approved">approved</option><option value="denied">denied</option><option value="expired">expired</option></select></label>
    <label>From <input id="history-from" type="date"></label>
    <label>To <input id="history-to" type="date"></label>
    <button type="submit" id="history-show">Show</button>
  </form>
  <p id="history-error" role="alert"></p>
  <table id="history-table"><thead><tr><th>Requested</th><th>Tool</th><th>Requester</th><th>Outcome</th><th>Decided by</th><th>Comment</th></tr></thead><tbody id="history-rows"></tbody></table>
  <p><span id="history-count"></span> <button type="button" id="history-older" hidden>Older</button></p>
</section>
</main>
</body>
</html>
`;

export const CONSOLE_CSS = `body{font-family:system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#111}
header{display:flex;gap:1rem;align-items:baseline;border-bottom:1px solid #ccc}
textarea{width:100%;font-family:monospace}
#sign-in-error,#history-error,.error{color:#a00}
#confirmations{list-style:none;padding:0}
.confirmation{border:1px solid #bbb;border-radius:4px;padding:.75rem;margin:.75rem 0;overflow-wrap:anywhere}
.confirmation pre{background:#f4f4f4;padding:.5rem;white-space:pre-wrap;overflow-wrap:anywhere}
.hidden-characters{color:#8a1c1c;font-weight:bold}
.labels{color:#444;font-size:.9em}
.countdown{font-weight:bold}
.countdown.expired{color:#a00}
.display{border-collapse:collapse;margin:.5rem 0}
.display td,.display th,#history-table td,#history-table th{border:1px solid #ddd;padding:.2rem .4rem;text-align:left;vertical-align:top}
.display code{background:#f4f4f4}
.display .problem{color:#8a1c1c}
.irreversible{background:#fff4e5;border:1px solid #e0a040;padding:.5rem}
.verdict-form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-top:.5rem}
.verdict-form input.comment{flex:1 1 20rem}
.approve{background:#176f2c;color:#fff}
.deny{background:#8a1c1c;color:#fff}
button:disabled{opacity:.5}
#history-form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}
#history-table{border-collapse:collapse;width:100%;font-size:.9em}
`;
export const CONSOLE_JS = `'use strict';
(function () {
  var csrf = null;
  var events = null;
  var skewMs = 0;
  var cards = new Map();
  // The console's own URL, whatever prefix a proxy put before it: every request is made under it.
  var root = location.pathname.replace(/\\/+$/, '');
  var $ = function (id) { return document.getElementById(id); };
  var el = function (tag, text, cls) { var e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
  // Bidirectional controls and invisible code points, shown as \\uXXXX (still JSON for the same value).
  var HIDDEN = /[${HIDDEN_CODE_POINTS}]/gu;
  var escapeMatches = ${escapeMatches.toString()};
  var visible = function (s) { return escapeMatches(String(s), HIDDEN); };

  function show(signedIn, session) {
    $('sign-in').hidden = signedIn;
    $('pending').hidden = !signedIn;
    $('results').hidden = !signedIn;
    $('history').hidden = !signedIn;
    $('sign-out').hidden = !signedIn;
    $('who').textContent = signedIn ? session.principal + ' (' + session.tenant + '), session until ' + session.expiresAt : '';
  }

  // An answer as text: JSON's error and message when it is JSON, else the status and the start of the body.
  function readAnswer(res) {
    return res.text().then(function (text) {
      var body = null;
      try { body = JSON.parse(text); } catch (e) { body = null; }
      var problem = body && typeof body === 'object' && body.error
        ? body.error + (body.message ? ': ' + body.message : '')
        : 'HTTP ' + res.status + (text ? ': ' + text.replace(/\\s+/g, ' ').slice(0, 200) : '');
      return { ok: res.ok, status: res.status, body: body, problem: problem };
    });
  }
  var NO_ANSWER = 'no answer from the authorizer (the network or a proxy failed); the verdict may not have been recorded: the list shows what is still pending';

  function countdown(node, expiresAt) {
    var left = Date.parse(expiresAt) - (Date.now() + skewMs);
    if (left <= 0) { node.textContent = 'expired'; node.classList.add('expired'); return false; }
    var s = Math.floor(left / 1000);
    node.textContent = 'expires in ' + Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
    return true;
  }

  function outcomeText(d) {
    if (!d.kind) return 'not ended yet';
    return d.kind + ', ' + d.effectBoundary + (d.reasonCode ? ', ' + d.reasonCode : '');
  }

  function card(c) {
    var li = el('li', undefined, 'confirmation');
    li.dataset.confirmationId = c.confirmationId;
    li.appendChild(el('h3', visible(c.tool)));
    li.appendChild(el('p', 'decision ' + visible(c.decisionId) + ', run ' + visible(c.runId), 'labels ids'));
    var r = c.requester;
    li.appendChild(el('p', 'Requested by ' + visible(r.principal) + ' of ' + visible(r.issuer || 'an issuer not kept') + ' through service ' + visible(r.serviceId || 'not kept') + ' at ' + c.requestedAt, 'requester'));
    var clock = el('p', '', 'countdown');
    clock.dataset.expiresAt = c.expiresAt;
    clock.title = 'expires at ' + c.expiresAt;
    li.appendChild(clock);
    if (c.hiddenCharacters.length > 0) {
      li.appendChild(el('p', 'Warning: hidden or direction-changing characters, shown escaped: ' + c.hiddenCharacters.map(function (h) { return h.path + ' (' + h.codePoints.join(' ') + ')'; }).join('; '), 'hidden-characters'));
    }
    var l = c.labels;
    li.appendChild(el('p', l ? 'provider ' + (l.provider || 'none') + ', data egress ' + l.dataEgress + ', data class ' + l.dataClass + ', reversible ' + l.reversible : 'tool no longer in the catalog', 'labels'));
    li.appendChild(el('p', c.riskScore !== null ? 'risk score ' + c.riskScore : 'risk score not given', 'labels risk'));
    if (c.display.length > 0) {
      var table = el('table', undefined, 'display');
      var head = el('tr');
      ['field', 'exact value that will run', 'shown as'].forEach(function (h) { head.appendChild(el('th', h)); });
      table.appendChild(head);
      c.display.forEach(function (f) {
        var tr = el('tr');
        tr.dataset.field = f.field;
        tr.appendChild(el('td', visible(f.field)));
        var exact = el('td'); exact.appendChild(el('code', visible(f.exact), 'exact')); tr.appendChild(exact);
        tr.appendChild(f.shown !== null ? el('td', visible(f.shown), 'shown') : el('td', 'cannot show as ' + f.kind + ': ' + f.problem, 'shown problem'));
        table.appendChild(tr);
      });
      li.appendChild(table);
    }
    li.appendChild(el('pre', visible(JSON.stringify(c.payload, null, 2)), 'payload'));
    li.appendChild(el('p', 'payload sha-256 ' + c.payloadSha256, 'labels'));
    var earlier = el('div', undefined, 'earlier');
    earlier.appendChild(el('h4', 'Earlier in this run'));
    if (c.earlier.length === 0) earlier.appendChild(el('p', 'No earlier decisions in this run.', 'labels'));
    else {
      var ol = el('ol');
      c.earlier.forEach(function (d) {
        var item = el('li', visible(d.tool) + ' ' + visible(d.decisionId) + ' at ' + d.receivedAt + ': ' + outcomeText(d));
        item.dataset.decisionId = d.decisionId;
        ol.appendChild(item);
      });
      earlier.appendChild(ol);
    }
    li.appendChild(earlier);

    var form = el('div', undefined, 'verdict-form');
    var comment = el('input', undefined, 'comment');
    comment.maxLength = 500;
    comment.placeholder = 'Comment (optional, journaled with your verdict)';
    comment.setAttribute('aria-label', 'comment');
    var typed = null;
    var approve = el('button', 'Approve', 'approve');
    var deny = el('button', 'Deny', 'deny');
    if (c.typedConfirmation !== null) {
      var box = el('p', undefined, 'irreversible');
      box.appendChild(el('span', 'This tool is irreversible: type '));
      box.appendChild(el('strong', visible(c.typedConfirmation)));
      box.appendChild(el('span', ' to approve. '));
      typed = el('input', undefined, 'typed-confirmation');
      typed.setAttribute('aria-label', 'type the tool name to approve');
      typed.autocomplete = 'off';
      typed.spellcheck = false;
      box.appendChild(typed);
      li.appendChild(box);
    }
    var error = el('p', '', 'error');
    error.setAttribute('role', 'alert');
    var state = { inFlight: false, expired: false };
    var refresh = function () {
      var typedOk = typed === null || typed.value === c.typedConfirmation;
      approve.disabled = state.inFlight || state.expired || !typedOk;
      deny.disabled = state.inFlight || state.expired;
      comment.disabled = state.inFlight;
      if (typed) typed.disabled = state.inFlight;
    };
    if (typed) typed.addEventListener('input', refresh);
    approve.addEventListener('click', function () { decide(c, 'approve', comment, typed, state, refresh, error); });
    deny.addEventListener('click', function () { decide(c, 'deny', comment, typed, state, refresh, error); });
    form.appendChild(comment);
    form.appendChild(approve);
    form.appendChild(deny);
    li.appendChild(form);
    li.appendChild(error);
    li.tick = function () { state.expired = !countdown(clock, c.expiresAt); refresh(); };
    li.tick();
    return li;
  }

  // Keyed: a card stays as it is (what was typed, a verdict in flight) while the stream re-sends the list.
  function render(list) {
    var ol = $('confirmations');
    var ids = new Set(list.map(function (c) { return c.confirmationId; }));
    cards.forEach(function (li, id) { if (!ids.has(id)) { li.remove(); cards.delete(id); } });
    list.forEach(function (c) {
      var li = cards.get(c.confirmationId);
      if (!li) { li = card(c); cards.set(c.confirmationId, li); }
      ol.appendChild(li);
    });
    $('empty').hidden = list.length > 0;
  }

  function verdict(text) { $('verdicts').appendChild(el('li', text)); }

  function decide(c, verb, comment, typed, state, refresh, error) {
    if (state.inFlight) return;
    state.inFlight = true;
    error.textContent = '';
    refresh();
    var body = {};
    if (comment.value.trim()) body.comment = comment.value.trim();
    if (verb === 'approve' && typed) body.typedConfirmation = typed.value;
    fetch(root + '/confirmations/' + encodeURIComponent(c.confirmationId) + '/' + verb, {
      method: 'POST', credentials: 'same-origin', headers: { 'X-CSRF-Token': csrf, 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    }).then(readAnswer).then(function (a) {
      if (a.ok) {
        verdict(c.tool + ' ' + c.confirmationId + ': ' + a.body.status);
        return; // stays disabled: the stream takes the card off
      }
      state.inFlight = false;
      refresh();
      error.textContent = 'Not recorded: ' + a.problem;
      verdict(c.tool + ' ' + c.confirmationId + ': refused (' + a.problem + ')');
      if (a.status === 401) signedOut();
    }, function () {
      state.inFlight = false;
      refresh();
      error.textContent = NO_ANSWER;
    });
  }

  var historyNext = null;
  function historyQuery(before) {
    var q = new URLSearchParams();
    [['tool', 'history-tool'], ['requester', 'history-requester'], ['outcome', 'history-outcome'], ['from', 'history-from'], ['to', 'history-to']].forEach(function (p) {
      var v = $(p[1]).value.trim();
      if (v) q.set(p[0], v);
    });
    if (before) q.set('before', before);
    return q.toString();
  }
  function loadHistory(append) {
    $('history-error').textContent = '';
    $('history-show').disabled = true;
    $('history-older').disabled = true;
    fetch(root + '/history?' + historyQuery(append ? historyNext : null), { credentials: 'same-origin' }).then(readAnswer).then(function (a) {
      $('history-show').disabled = false;
      $('history-older').disabled = false;
      if (!a.ok) { $('history-error').textContent = 'History not loaded: ' + a.problem; return; }
      var rows = $('history-rows');
      if (!append) rows.replaceChildren();
      a.body.items.forEach(function (v) {
        var tr = el('tr');
        tr.dataset.confirmationId = v.confirmationId;
        tr.dataset.outcome = v.outcome;
        [v.requestedAt, visible(v.tool), visible(v.requester.principal) + ' of ' + visible(v.requester.issuer || 'an issuer not kept'), v.outcome,
          v.decidedBy ? visible(v.decidedBy.subject) + ' at ' + v.decidedAt : '', v.comment !== null ? visible(v.comment) : ''].forEach(function (t) { tr.appendChild(el('td', t)); });
        rows.appendChild(tr);
      });
      historyNext = a.body.next;
      $('history-older').hidden = historyNext === null;
      $('history-count').textContent = rows.children.length + ' shown' + (historyNext === null ? ', no more' : '');
    }, function () {
      $('history-show').disabled = false;
      $('history-older').disabled = false;
      $('history-error').textContent = NO_ANSWER;
    });
  }

  function listen() {
    if (events) events.close();
    events = new EventSource(root + '/events');
    events.addEventListener('open', function () { $('live').textContent = '(live)'; });
    events.addEventListener('error', function () { $('live').textContent = '(reconnecting)'; });
    events.addEventListener('confirmations', function (e) { render(JSON.parse(e.data)); });
    events.addEventListener('outcomes', function (e) {
      var ol = $('outcomes');
      ol.replaceChildren();
      JSON.parse(e.data).forEach(function (o) {
        var li = el('li', o.tool + ' ' + o.confirmationId + ' (' + o.verdict + '): ' + o.kind + ', ' + o.effectBoundary + (o.reasonCode ? ', ' + o.reasonCode : ''));
        li.dataset.decisionId = o.decisionId;
        ol.appendChild(li);
      });
    });
    events.addEventListener('signed-out', function () { signedOut(); });
  }

  function signedIn(session) {
    csrf = session.csrfToken;
    show(true, session);
    listen();
    loadHistory(false);
  }

  function signedOut() {
    if (events) events.close();
    events = null;
    csrf = null;
    cards.forEach(function (li) { li.remove(); });
    cards.clear();
    show(false);
  }

  // The server's clock, from its Date header: a countdown runs on it, not on this machine's.
  function clockOf(res) {
    var date = Date.parse(res.headers.get('Date') || '');
    if (!Number.isNaN(date)) skewMs = date - Date.now();
    return res;
  }

  function signIn(path, body) {
    $('sign-in-error').textContent = '';
    fetch(root + path, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
      .then(clockOf).then(readAnswer)
      .then(function (a) {
        if (a.ok) signedIn(a.body);
        else $('sign-in-error').textContent = 'Not signed in: ' + a.problem;
      }, function () { $('sign-in-error').textContent = NO_ANSWER; });
  }

  document.addEventListener('DOMContentLoaded', function () {
    if ($('token')) $('sign-in-form').addEventListener('submit', function (e) {
      e.preventDefault();
      var token = $('token').value.trim();
      $('token').value = '';
      signIn('/session', { token: token });
    });
    if (document.body.dataset.devSignIn === 'true') {
      $('dev-sign-in').hidden = false;
      $('dev-sign-in').addEventListener('click', function () { signIn('/dev-session', {}); });
    }
    $('sign-out').addEventListener('click', function () {
      fetch(root + '/session', { method: 'DELETE', credentials: 'same-origin', headers: { 'X-CSRF-Token': csrf || '' } }).then(signedOut, signedOut);
    });
    $('history-form').addEventListener('submit', function (e) { e.preventDefault(); loadHistory(false); });
    $('history-older').addEventListener('click', function () { loadHistory(true); });
    setInterval(function () { cards.forEach(function (li) { li.tick(); }); }, 1000);
    // A reloaded page with a live session carries on (the cookie is HttpOnly: only the server can tell).
    fetch(root + '/session', { credentials: 'same-origin' }).then(clockOf).then(function (res) {
      if (res.ok) return res.json().then(signedIn);
      show(false);
    });
  });
})();
`;
