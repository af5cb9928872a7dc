// The approver console's page: static HTML, script and style served by the authorizer itself (no
// build step, no framework, nothing from another origin; the CSP allows only 'self'). Everything
// shown is written with textContent, so a payload cannot inject markup, and passes through
// `visible`, so a bidirectional control or an invisible character cannot disguise it.
import { escapeMatches, HIDDEN_CODE_POINTS } from '../list-confirmations/hidden-characters';

export const consoleHtml = (devSignIn: boolean) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Arvis approver console</title>
<link rel="stylesheet" href="/console/console.css">
<script src="/console/console.js" defer></script>
</head>
<body data-dev-sign-in="${devSignIn ? 'true' : 'false'}">
<header><h1>Approver console</h1><p id="who"></p><button id="sign-out" hidden>Sign out</button></header>
<main>
<section id="sign-in">
  <h2>Sign in</h2>
  <form id="sign-in-form" method="post" action="#">
    <label for="token">Paste your approver token (it is sent once, in the request body, and never kept by this page)</label>
    <textarea id="token" rows="4" autocomplete="off" spellcheck="false"></textarea>
    <button type="submit" id="sign-in-button">Sign in</button>
    <button type="button" id="dev-sign-in" hidden>Dev sign-in (local only)</button>
  </form>
  <p id="sign-in-error" role="alert"></p>
</section>
<section id="pending" hidden>
  <h2>Pending confirmations <span id="live"></span></h2>
  <p id="empty">Nothing is waiting for you.</p>
  <ol id="confirmations"></ol>
</section>
<section id="results" hidden><h2>Your verdicts</h2><ol id="verdicts"></ol>
  <h3>How they ended (from the journal)</h3><ol id="outcomes"></ol></section>
</main>
</body>
</html>
`;

export const CONSOLE_CSS = `body{font-family:system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#111}
header{display:flex;gap:1rem;align-items:baseline;border-bottom:1px solid #ccc}
textarea{width:100%;font-family:monospace}
#sign-in-error{color:#a00}
#confirmations{list-style:none;padding:0}
.confirmation{border:1px solid #bbb;border-radius:4px;padding:.75rem;margin:.75rem 0;overflow-wrap:anywhere}
.confirmation pre{background:#f4f4f4;padding:.5rem;white-space:pre-wrap;overflow-wrap:anywhere}
.hidden-characters{color:#8a1c1c;font-weight:bold}
.labels{color:#444;font-size:.9em}
.approve{background:#176f2c;color:#fff}
.deny{background:#8a1c1c;color:#fff}
`;

export const CONSOLE_JS = `'use strict';
(function () {
  var csrf = null;
  var events = null;
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
    $('sign-out').hidden = !signedIn;
    $('who').textContent = signedIn ? session.principal + ' (' + session.tenant + '), session until ' + session.expiresAt : '';
  }

  function render(list) {
    var ol = $('confirmations');
    ol.replaceChildren();
    $('empty').hidden = list.length > 0;
    list.forEach(function (c) {
      var li = el('li', undefined, 'confirmation');
      li.dataset.confirmationId = c.confirmationId;
      li.appendChild(el('h3', visible(c.tool)));
      var r = c.requester;
      li.appendChild(el('p', 'Requested by ' + visible(r.principal) + ' of ' + visible(r.issuer || 'an issuer not kept') + ' through service ' + visible(r.serviceId || 'not kept') + ' at ' + c.requestedAt + '; expires ' + c.expiresAt, 'requester'));
      li.appendChild(el('p', 'decision ' + visible(c.decisionId) + ', run ' + visible(c.runId), 'labels ids'));
      if (c.hiddenCharacters.length > 0) {
        li.appendChild(el('p', 'Warning: hidden or direction-changing characters, shown escaped: ' + c.hiddenCharacters.map(function (h) { return h.path + ' (' + h.codePoints.join(' ') + ')'; }).join('; '), 'hidden-characters'));
      }
      var l = c.labels;
      li.appendChild(el('p', l ? 'provider ' + (l.provider || 'none') + ', data egress ' + l.dataEgress + ', data class ' + l.dataClass + ', reversible ' + l.reversible : 'tool no longer in the catalog', 'labels'));
      if (c.riskScore !== null) li.appendChild(el('p', 'risk score ' + c.riskScore, 'labels'));
      li.appendChild(el('pre', visible(JSON.stringify(c.payload, null, 2)), 'payload'));
      li.appendChild(el('p', 'payload sha-256 ' + c.payloadSha256, 'labels'));
      var approve = el('button', 'Approve', 'approve');
      var deny = el('button', 'Deny', 'deny');
      approve.addEventListener('click', function () { decide(c, 'approve'); });
      deny.addEventListener('click', function () { decide(c, 'deny'); });
      li.appendChild(approve);
      li.appendChild(deny);
      ol.appendChild(li);
    });
  }

  function verdict(text) { $('verdicts').appendChild(el('li', text)); }

  function decide(c, verb) {
    fetch('/console/confirmations/' + encodeURIComponent(c.confirmationId) + '/' + verb, {
      method: 'POST', credentials: 'same-origin', headers: { 'X-CSRF-Token': csrf },
    }).then(function (res) {
      return res.json().then(function (body) {
        verdict(res.ok ? c.tool + ' ' + c.confirmationId + ': ' + body.status : c.tool + ' ' + c.confirmationId + ': refused (' + body.error + (body.message ? ': ' + body.message : '') + ')');
        if (res.status === 401) signedOut();
      });
    });
  }

  function listen() {
    if (events) events.close();
    events = new EventSource('/console/events');
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
  }

  function signedOut() {
    if (events) events.close();
    events = null;
    csrf = null;
    show(false);
  }

  function signIn(path, body) {
    $('sign-in-error').textContent = '';
    fetch(path, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (res) {
        return res.json().then(function (b) {
          if (res.ok) signedIn(b);
          else $('sign-in-error').textContent = 'Not signed in: ' + b.error + (b.message ? ': ' + b.message : '');
        });
      });
  }

  document.addEventListener('DOMContentLoaded', function () {
    $('sign-in-form').addEventListener('submit', function (e) {
      e.preventDefault();
      var token = $('token').value.trim();
      $('token').value = '';
      signIn('/console/session', { token: token });
    });
    if (document.body.dataset.devSignIn === 'true') {
      $('dev-sign-in').hidden = false;
      $('dev-sign-in').addEventListener('click', function () { signIn('/console/dev-session', {}); });
    }
    $('sign-out').addEventListener('click', function () {
      fetch('/console/session', { method: 'DELETE', credentials: 'same-origin', headers: { 'X-CSRF-Token': csrf || '' } }).then(signedOut, signedOut);
    });
    // A reloaded page with a live session carries on (the cookie is HttpOnly: only the server can tell).
    fetch('/console/session', { credentials: 'same-origin' }).then(function (res) {
      if (res.ok) return res.json().then(signedIn);
      show(false);
    });
  });
})();
`;
