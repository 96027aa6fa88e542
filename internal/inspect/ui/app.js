// whsim inspector. Everything that came from the network is put on the page
// as text (textContent, text nodes, attribute values), never parsed as HTML.
"use strict";

const MAX_ROWS = 1000; // rows kept on the page; older ones load on demand

const $ = (id) => document.getElementById(id);
// loadedOlder: "load older" brought rows the user asked for; newer counts
// the new calls held back for them (see prepend). events: those the event
// filter offers. gaps: the calls a stream said left the window before the
// page saw them and that no row or "load older" stands for (see showGaps).
// kept: the focused row new calls keep in place, and where; keep, the
// same while the frame's adjustment is due (see keepFocusedRow).
// replays: by call id, what the page says of its replay and whether it is
// sending (see showReplay). listed: a listing came (see listFailed);
// loadingOlder: "load older" is waiting for its answer (see loadOlder).
const state = { listed: false, loadingOlder: false, info: null, selected: null, open: null, base: null, source: null, gen: 0, loadedOlder: false, newer: 0, events: null, gaps: [], kept: null, keep: null, replays: new Map() };

// el builds an element; strings among the children become text nodes and
// an array's items are children each. A list of a call's parts (headers,
// query, findings, a JSON branch) goes in as one array, never spread into
// arguments: a browser bounds their count, and a query of 200,000
// parameters threw RangeError.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// BIDI_MARK matches one of BIDI_OR_INVISIBLE's characters (below), kept
// by split: shown draws each as its escape.
const BIDI_MARK = /([\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff])/;

// shown is s for a table's or a list's cell: each character that
// reorders the text after it or draws nothing as its \uXXXX escape, as
// the tree shows it (in a header value, a query value or a requestId,
// U+202E drew "12345" as "54321").
// ridText is a call's requestId as whsim's text says it: "-" when its
// body names none (null), "" in quotes when it names an empty one.
function ridText(v) {
  if (v == null) return "-";
  return v === "" ? '""' : v;
}

function shown(s) {
  const str = String(s ?? "");
  if (str.search(BIDI_MARK) < 0) return str;
  return str.split(BIDI_MARK).map((p, i) => i % 2
    ? el("span", { class: "ctl", title: "a bidi control or invisible character, shown escaped" }, "\\u" + p.charCodeAt(0).toString(16).padStart(4, "0"))
    : p);
}

// escaped is s for a tooltip (a title attribute): plain text, with the
// characters shown draws as escapes written as those escapes, so that
// hovering a cell does not draw its value backwards.
function escaped(s) {
  return String(s ?? "").replace(BIDI_OR_INVISIBLE, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

// WHOLE_STATUS is a status filter the API takes: a code (500) or a class (5xx).
const WHOLE_STATUS = /^[0-9]([0-9]{2}|xx)$/i;

function filterQuery() {
  const p = new URLSearchParams();
  const add = (k, v) => { if (v) p.set(k, v); };
  add("event", $("f-event").value);
  add("verdict", $("f-verdict").value);
  // A status is sent once it is whole (500, 5xx): the API refuses a part.
  const status = $("f-status").value.trim();
  if (WHOLE_STATUS.test(status)) add("status", status);
  // Spaces around a pasted document number are not part of it.
  add("q", $("f-q").value.trim());
  return p;
}

// checkStatus says when the status box holds what is not applied: the
// list showed every call under "abc" as if it were the filter's.
function checkStatus() {
  const status = $("f-status").value.trim();
  const partial = status !== "" && !WHOLE_STATUS.test(status);
  $("f-status").setAttribute("aria-invalid", String(partial));
  $("f-status-note").hidden = !partial;
}

async function getJSON(url, init) {
  return (await fetchJSON(url, init)).body;
}

// fetchJSON returns the answer's JSON and its headers. Without the
// session's cookie every /api/ request is refused (401): say how to get it.
// The error carries the API's status, for a caller that acts on it.
// Nothing answering (whsim ended) and an answer that is not the API's
// JSON each say so, not the browser's "Failed to fetch" or a JSON parse
// error.
async function fetchJSON(url, init) {
  let r;
  try {
    r = await fetch(url, init);
  } catch (err) {
    throw new Error("no answer from the inspector (" + err.message + ")");
  }
  let body;
  try {
    body = await r.json();
  } catch {
    throw new Error(r.ok ? "the inspector's answer is not JSON" : r.status + " " + r.statusText);
  }
  if (r.status === 401) $("auth").hidden = false;
  if (!r.ok) throw Object.assign(new Error(body.error || r.statusText), { status: r.status });
  return { body, headers: r.headers };
}

// bodySize is a call's body size as listen's line says it: a body over
// --max-body was not kept, nor was a request the HTTP server refused
// (its head's bytes are what came), and their record's size, 0, is not
// the body's.
function bodySize(c) {
  if (c.headBytes !== undefined) return size(c.headBytes) + " of head";
  return c.bodyOverLimit ? "over " + size(c.bodyOverLimit) : size(c.size);
}

function size(n) {
  if (n < 1024) return n + " B";
  if (n < 1 << 20) return (n / 1024).toFixed(1) + " KiB";
  return (n / (1 << 20)).toFixed(1) + " MiB";
}

function time(iso) {
  // A call listed without its record (too large to read back) has no time.
  if (iso.startsWith("0001-")) return "-";
  const d = new Date(iso);
  const pad = (n, w) => String(n).padStart(w || 2, "0");
  return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + "." + pad(d.getMilliseconds(), 3);
}

function statusClass(s) { return s >= 500 || s === 0 ? "bad" : s >= 400 ? "warn" : "ok"; }
const verdictClass = { valid: "ok", warning: "warn", invalid: "bad" };

// offerEvent adds an event the filter does not offer yet: one the spec
// does not name, seen on a listed call (the API filters by any name).
function offerEvent(ev) {
  if (!ev || !state.events || state.events.has(ev)) return;
  state.events.add(ev);
  // An option holds text alone: a bidi control in the name shows as its
  // escape (escaped), the value stays the name the API filters by.
  $("f-event").insertBefore(el("option", { value: ev }, escaped(ev)), $("f-event").querySelector('option[value="-"]'));
}

function row(c) {
  offerEvent(c.event);
  // tabindex -1: the list is one Tab stop (setTabStop), its rows reached
  // with the arrows.
  const tr = el("tr", { "data-id": String(c.id), class: "v-" + c.verdict, tabindex: "-1" },
    el("td", { class: "num" }, c.id),
    el("td", { class: "time" }, time(c.receivedAt)),
    el("td", {}, c.method),
    el("td", { class: "path", title: escaped(c.path) }, shown(c.path)),
    el("td", { class: "event", title: escaped(c.event) }, shown(c.event || "-")),
    // The mark goes first: the cell cuts a long requestId short.
    el("td", { class: "rid", title: escaped(ridText(c.requestId)) },
      c.repeatOf ? el("span", { class: "dup", title: "requestId seen before, in call #" + c.repeatOf }, "↻ #" + c.repeatOf + " ") : null,
      shown(ridText(c.requestId))),
    // A record too large to read back is listed as what listen knew of it.
    el("td", { class: "num" }, c.tooLarge ? (c.size ? size(c.size) + ", " : "") + "too large to show" : bodySize(c)),
    c.unanswered
      // listen had the status ready; the sender never got it.
      ? el("td", { class: "status bad", title: "listen had " + c.status + " ready; the sender never received it" }, "none (" + c.status + " unsent)")
      : el("td", { class: "status " + statusClass(c.status) }, c.status || "-"),
    el("td", { class: "verdict " + (verdictClass[c.verdict] || "") }, (c.verdict || "not known") + (c.findings ? " (" + c.findings + ")" : ""),
      c.flags ? el("span", { class: "flag", title: "FLAG lines listen printed" }, " FLAG ×" + c.flags) : null));
  if (c.id === state.open) tr.setAttribute("aria-current", "true");
  tr.addEventListener("click", () => openLink(c.id));
  // A row the focus reaches (Tab, a click) is the selected one, so Enter
  // opens the row the keyboard is on.
  tr.addEventListener("focus", () => { if (state.selected !== tr) select(tr); });
  return tr;
}

// showEmpty says why the list is empty: "No calls yet." of a capture
// searched without a match read as if it held no call.
function showEmpty() {
  const none = $("rows").children.length === 0;
  $("list-empty").hidden = !none;
  if (none) {
    $("list-empty").textContent = !filterQuery().toString() ? "No calls yet."
      : state.next ? "No call matches the search or filters among the calls looked at so far: \"search older calls\" looks further."
      : "No call matches the search or filters.";
  }
  setTabStop();
}

// setTabStop keeps the list one Tab stop, as WAI-ARIA's grid pattern has
// it (a roving tabindex): the selected row, else the newest, takes the
// focus from Tab; the arrows, j and k move it from row to row. Without it
// the rows took no focus and a keyboard could not open a call.
function setTabStop() {
  const rows = $("rows");
  const stop = state.selected && state.selected.isConnected ? state.selected : rows.firstElementChild;
  const was = rows.querySelector('tr[tabindex="0"]');
  if (was === stop) return;
  if (was) was.tabIndex = -1;
  if (stop) stop.tabIndex = 0;
}

// prepend adds calls newer than every row, newest on top, dropping the
// oldest past MAX_ROWS. Once "load older" brought rows, a call that would
// drop one is held back and counted instead: under load the rows asked
// for would be gone at once. "show N newer calls" lists them all again.
function prepend(calls) {
  keepFocusedRow();
  addNewer(calls);
}

// keepFocusedRow keeps a row with the focus where it is on the screen: at
// the top of the list, where the browser's scroll anchoring does not hold
// it, new rows pushed it out of sight under the keyboard's user. Without
// a focused row the list's top shows the newest calls as they come. It
// measures once a frame, before the frame's first call, and puts the row
// back before the frame is drawn: a measure per call would lay out the
// whole table once for each under load.
function keepFocusedRow() {
  if (state.keep) return; // measured already this frame
  const focused = $("rows").contains(document.activeElement) ? document.activeElement : null;
  if (!focused) return;
  let top = focused.getBoundingClientRect().top;
  // scrollTop is whole pixels and a row is not: kept to where the row was
  // first, not to where the last frame left it, the error of each does
  // not add up (50 calls moved it a row).
  if (state.kept && state.kept.row === focused && Math.abs(state.kept.top - top) < 1) top = state.kept.top;
  state.keep = state.kept = { row: focused, top };
  requestAnimationFrame(() => {
    const k = state.keep;
    state.keep = null;
    if (k.row.isConnected) $("list-pane").scrollTop += k.row.getBoundingClientRect().top - k.top;
  });
}

function addNewer(calls) {
  const tbody = $("rows");
  if (state.loadedOlder && tbody.children.length + calls.length > MAX_ROWS) {
    state.newer += calls.length;
    $("newer").hidden = false;
    $("newer").textContent = "show " + state.newer + " newer call" + (state.newer === 1 ? "" : "s");
    return;
  }
  for (const c of calls) {
    const first = tbody.firstElementChild;
    if (first && Number(first.dataset.id) >= c.id) continue;
    tbody.insertBefore(row(c), first);
  }
  if (tbody.children.length > MAX_ROWS) {
    while (tbody.children.length > MAX_ROWS) tbody.lastElementChild.remove();
    // The dropped rows are below the oldest one kept: "load older" goes
    // on from there, wherever the listing had stopped.
    showOlder(tbody.lastElementChild.dataset.id, false);
    showGaps();
  }
  showEmpty();
}

function append(calls) {
  const tbody = $("rows");
  for (const c of calls) tbody.append(row(c));
  showEmpty();
}

async function reload() {
  if (state.source) state.source.close();
  state.source = null;
  const gen = ++state.gen; // a newer reload wins over one still waiting
  const q = filterQuery();
  q.set("limit", "200");
  const { body: calls, headers } = await fetchJSON("api/calls?" + q);
  if (gen !== state.gen) return;
  state.listed = true;
  $("rows").replaceChildren();
  state.loadedOlder = false;
  state.newer = 0;
  $("newer").hidden = true;
  // A new listing has every call the inspector can list: no gap is left.
  state.gaps = [];
  showGaps();
  append(calls);
  setOlder(calls, headers);
  // The stream goes on after the newest call the listing looked at, not
  // the newest it found: a search that found none within its bound of work
  // streamed from the first call, and "search older calls" listed again
  // what the stream had sent, twice on the page.
  const newest = Math.max(Number(headers.get("Whsim-Newest")) || 0, calls.length ? calls[0].id : 0);
  const sq = filterQuery();
  sq.set("after", String(newest));
  // EventSource reconnects by itself, sending Last-Event-ID: the server
  // resumes after it, so a dropped connection loses no call.
  state.source = new EventSource("api/stream?" + sq);
  state.source.addEventListener("call", (e) => prepend([JSON.parse(e.data)]));
  // The list is live only while the stream is open: a stream lost (whsim
  // ended, say) is said at once, not left to look live.
  state.source.addEventListener("open", () => { if (gen === state.gen) $("conn").hidden = true; });
  state.source.addEventListener("error", () => {
    if (gen !== state.gen) return;
    $("conn").hidden = false;
    if (state.source.readyState !== EventSource.CLOSED) {
      // The browser tries again by itself.
      $("conn").textContent = "The inspector does not answer (whsim ended?): the list is as it was when it stopped, and the page tries again.";
      return;
    }
    // Closed for good (refused: the inspector restarted, 32 streams open
    // already, this page's session no longer its own, say): start over,
    // and the new listing says which (see relist).
    $("conn").textContent = "The inspector refused the live list (restarted, or too many of its pages open): the page lists again in a moment.";
    setTimeout(() => { if (gen === state.gen) relist(); }, 2000);
  });
  // Calls the inspector missed as they came (it fell behind listen) are
  // in no listing: the count is said, never left for the list to belie.
  state.source.addEventListener("missed", (e) => {
    const n = JSON.parse(e.data).calls;
    $("missed").textContent = "The inspector missed " + n + (n === 1 ? " call" : " calls") +
      " as they came (it fell behind listen): this list leaves them out. listen's --capture file has them (whsim inspect lists every one); without --capture they are gone.";
    $("missed").hidden = false;
  });
  state.source.addEventListener("gap", (e) => {
    const g = JSON.parse(e.data);
    if (g.listed && !$("rows").children.length && !state.next) {
      // Nothing is listed below them: they are older calls, which "load
      // older" reads back, not a hole in the list.
      showOlder(String(g.to + 1), false);
      return;
    }
    state.gaps.push(g);
    showGaps();
  });
  if (state.open) markSelected(state.open);
}

// relist lists again (after the stream was refused for good, a filter
// changed, newer calls asked for), and keeps the connection note true when
// that fails: the page said it "lists again in a moment" while the
// inspector refused its session and nothing tried again, and a filter
// changed while whsim did not answer closed the live stream unsaid.
async function relist() {
  const listing = reload();
  const gen = state.gen; // reload's: a newer listing (a filter) wins
  try {
    await listing;
  } catch (err) {
    if (gen !== state.gen) return;
    listFailed(err, () => { if (gen === state.gen) relist(); });
  }
}

// listFailed says a listing (or the inspector's info, before the first)
// failed and what comes next, and calls again to try once more. Refused
// (401: whsim restarted, its sessions gone), only opening the URL whsim
// printed helps, so the page stops and says so; any other failure (no
// answer, an error of the inspector's) is said and tried again. The
// first listing's failure left the page blank but for "No calls yet.".
function listFailed(err, again) {
  const what = state.listed ? "could not list again" : "could not list the calls";
  const list = state.listed ? "the list is as it was, not live" : "no call is listed, and the list is not live";
  $("conn").hidden = false;
  if (err.status === 401) {
    $("conn").textContent = "The inspector refused this page's session (whsim restarted?): " + list + ", and the page does not try again; open the URL whsim printed.";
    return;
  }
  $("conn").textContent = "The page " + what + " (" + err.message + "): " + list + "; the page tries again in a moment.";
  setTimeout(again, 2000);
}

// showGaps says which calls the list misses between its rows, true at
// every moment: of a gap the list can still show (listed), the calls that
// "load older" reaches (below state.next) are not missed, only older; one
// that the inspector no longer has stays said until a new listing.
function showGaps() {
  const reach = state.next ? Number(state.next) : 0;
  state.gaps = state.gaps.filter((g) => !g.listed || g.to >= reach).map((g) => (g.listed ? { from: Math.max(g.from, reach), to: g.to, listed: true } : g));
  const calls = (gs) => gs.map((g) => (g.from === g.to ? "call " + g.from : "calls " + g.from + " to " + g.to)).join(", ");
  const listed = state.gaps.filter((g) => g.listed), gone = state.gaps.filter((g) => !g.listed);
  const says = [];
  if (listed.length) says.push("Not shown: " + calls(listed) + ", which left the page's window before it saw them; the capture file has them (whsim inspect), and a new listing (a filter, the search) shows them.");
  if (gone.length) says.push("Not shown: " + calls(gone) + ", which left the inspector's memory before the page saw them (listen has no --capture to read them back from).");
  $("gap").hidden = !says.length;
  $("gap").textContent = says.join(" ");
}

// setOlder shows "load older" when there may be more: a full page, or a
// search that stopped at its bound of work (the server says where).
function setOlder(calls, headers) {
  const searchFrom = headers.get("Whsim-Next-Before");
  showOlder(searchFrom || (calls.length >= 200 ? String(calls[calls.length - 1].id) : ""), Boolean(searchFrom));
}

// showOlder offers the calls below the id next ("": none), as a search
// going on when the server said where it stopped.
function showOlder(next, searching) {
  state.next = next;
  $("older").hidden = !next;
  $("older").textContent = searching ? "search older calls (below #" + next + ")" : "load older calls";
  showEmpty();
}

// loadOlder lists the calls below the oldest row. One load at a time: a
// second press (a double click) before the answer asked for the same
// calls and listed each twice. A load a new listing outdated (a filter
// changed meanwhile) is dropped: its calls are the old filter's.
async function loadOlder() {
  if (!state.next || state.loadingOlder) return;
  const q = filterQuery();
  q.set("limit", "200");
  q.set("before", state.next);
  const gen = state.gen;
  state.loadingOlder = true;
  let calls, headers;
  try {
    ({ body: calls, headers } = await fetchJSON("api/calls?" + q));
  } catch (err) {
    // Said on the button, which tries again: swallowed, the press did
    // nothing at all.
    if (gen === state.gen) $("older").textContent = "older calls could not load (" + err.message + "): press to try again";
    return;
  } finally {
    state.loadingOlder = false;
  }
  if (gen !== state.gen) return;
  const first = $("rows").children.length;
  const had = document.activeElement === $("older");
  append(calls);
  state.loadedOlder = true;
  setOlder(calls, headers);
  // The button pressed from the keyboard hid itself (no more to load): the
  // focus goes on with the first row it loaded, not back to the page's
  // start.
  if (had && $("older").hidden) select($("rows").children[first] || $("rows").lastElementChild, true);
}

// showNewer lists afresh with the calls held back; the focus, on the
// button that goes, goes to the list's Tab stop.
async function showNewer() {
  const had = document.activeElement === $("newer");
  await relist();
  const stop = $("rows").querySelector('tr[tabindex="0"]');
  if (had && stop) stop.focus();
}

// select highlights a row and makes it the list's Tab stop; focus also
// moves the keyboard's focus to it.
function select(tr, focus) {
  if (state.selected) state.selected.classList.remove("selected");
  state.selected = tr;
  if (tr) {
    tr.classList.add("selected");
    if (focus) tr.focus({ preventScroll: true });
    tr.scrollIntoView({ block: "nearest" });
  }
  setTabStop();
}

function markSelected(id) {
  const tr = $("rows").querySelector('tr[data-id="' + Number(id) + '"]');
  if (tr) select(tr);
}

// move selects the row step rows down (up when negative). The focus goes
// with it when it was in the list or nowhere; on a control of the call
// shown it stays there.
function move(step) {
  const rows = $("rows");
  let tr = state.selected && state.selected.isConnected ? state.selected : null;
  if (!tr) tr = step > 0 ? rows.firstElementChild : rows.lastElementChild;
  else tr = step > 0 ? tr.nextElementSibling || tr : tr.previousElementSibling || tr;
  const active = document.activeElement;
  select(tr, !active || active === document.body || rows.contains(active));
}

// markOpen tells a screen reader which row's call is shown.
function markOpen(id) {
  for (const tr of $("rows").querySelectorAll("tr[aria-current]")) tr.removeAttribute("aria-current");
  const tr = $("rows").querySelector('tr[data-id="' + Number(id) + '"]');
  if (tr) tr.setAttribute("aria-current", "true");
}

// ---- the detail of one call ----

// openLink opens a call by its link. When the address names it already
// (it could not open, say), no hashchange comes: route is asked again, and
// a call that failed to open is tried again rather than nothing happening.
function openLink(id) {
  const link = "#/calls/" + id;
  if (location.hash === link) route();
  else location.hash = link;
}

// route opens the call the address names (#/calls/21): a call's link.
function route() {
  const m = /^#\/calls\/(\d+)$/.exec(location.hash);
  if (!m) return;
  const id = Number(m[1]);
  markSelected(id);
  markOpen(id);
  if (state.open !== id || !document.querySelector('.detail[data-id="' + id + '"]')) openCall(id);
}

async function openCall(id) {
  state.open = id;
  let d;
  try {
    d = await getJSON("api/calls/" + id);
  } catch (err) {
    showDetail(el("p", { class: "error" }, "Call #" + id + " could not open: " + err.message));
    return;
  }
  if (state.open !== id) return;
  showDetail(detail(d));
}

// showDetail puts a call, or why it could not open, in the detail pane.
// When the focus was in the pane (on a link to another delivery, say), it
// goes to the new call's heading: removed with the old call, it fell back
// to the page's start.
function showDetail(content) {
  const pane = $("detail-pane");
  const had = pane.contains(document.activeElement);
  pane.replaceChildren(content);
  if (!had) return;
  const head = content.querySelector("h2") || content;
  head.tabIndex = -1;
  head.focus();
}

function section(title, ...content) {
  return el("details", { open: "" }, el("summary", {}, title), ...content);
}

function table(pairs, empty) {
  if (!pairs || !pairs.length) return el("p", { class: "hint" }, empty);
  return el("table", { class: "kv" }, pairs.map((p) => el("tr", {}, el("th", {}, shown(p.name)), el("td", {}, shown(p.value)))));
}

function detail(d) {
  // The request line's parts are drawn each on its own (isolated): a bidi
  // control in the path drew the query after it backwards. Within each,
  // such a control shows as its escape, as in the list: "/hook\u202e12345"
  // drew "/hook54321".
  const line = [el("span", { class: "iso" }, shown(d.method)), " ", el("span", { class: "iso" }, shown(d.path)),
    d.query ? el("span", { class: "iso" }, shown("?" + d.query)) : null];
  const out = el("div", { class: "detail", "data-id": String(d.id) },
    el("h2", {}, el("span", { class: "reqline" }, line), " ",
      el("span", { class: "badge " + (verdictClass[d.verdict] || "") }, d.verdict || "not known")),
    el("p", { class: "meta" }, el("a", { class: "permalink", href: "#/calls/" + d.id, title: "this call's link" }, "#" + d.id),
      " · " + (d.receivedAt.startsWith("0001-") ? "time not known" : new Date(d.receivedAt).toISOString()) + " · from " + d.remote +
      " · " + bodySize(d) + " · requestId ", shown(ridText(d.requestId))),
    actions(d));
  out.append(flagsList(d));
  out.append(faultNote(d));
  out.append(links("deliveries", "Deliveries of this requestId", d.deliveries, d.id, d.deliveriesNotShown, d.requestId));
  out.append(links("document", "Calls about " + (d.docNumber || "this document"), d.document, d.id, d.documentNotShown, d.docNumber));
  if (d.bodyGone) out.append(el("p", { class: "note warning" }, "The body left memory (the inspector keeps a bounded amount of bodies) and no file has it to read back: listen without --capture, or inspect of a pipe."));
  out.append(findingsList(d));
  out.append(section("Query", table(d.queryParams, "No query.")));
  out.append(section("Headers (credentials masked)", table(d.headers, "No headers.")));
  const body = el("div", { class: "tree" });
  if (d.decoded) body.append(el("p", { class: "hint" }, "Decoded from its Content-Encoding (" + d.decoded + "): the document below; the raw bytes are as sent."));
  if (d.tree) body.append(node(d.tree, d.findingList, { left: TREE_BUDGET }));
  else body.append(el("p", { class: "hint" }, d.bodyGone ? "Gone from memory (see above)."
    : d.tooLarge ? "Not shown: " + d.notKept + "."
    : d.rejected ? "Not read: " + d.rejected.reason + " (" + d.rejected.headBytes + " bytes of its head came; the empty body here is not the one sent)."
    : d.bodyOverLimit ? "Not kept: over listen's --max-body of " + d.bodyOverLimit + " bytes (the empty body here is not the one sent)."
    : d.noTree === "too-large" ? "JSON larger than the page shows as a tree (more than 50,000 values, or keys repeated in too many paths): see the raw bytes below."
    : d.noTree === "too-deep" ? "JSON nested deeper than the page shows as a tree (256 levels): see the raw bytes below."
    : d.size ? "Not JSON: see the raw bytes below." : "Empty body."));
  out.append(section("Body", body));
  // No raw bytes to show of a body not kept: "0 B" would read as the call's.
  if (!d.notKept) out.append(rawView(d));
  // An answer the sender never got is no answer it took: say so.
  // A receiver's answer over --max-body went on cut at the limit: the
  // bytes shown are its first, not all it said, in both answers.
  // (The sender's answer is the receiver's unless listen gave its own:
  // a fault's, or a 5xx for a call it could not record.)
  const cut = d.forward && !d.forward.error && d.forward.bodyCut
    ? () => el("p", { class: "note warning body-cut" }, "Cut: " + d.forward.bodyCut + ".") : () => "";
  if (d.response) out.append(section(d.unanswered
    ? "listen had " + d.response.status + " ready, never received: " + d.unanswered.reason
    : "listen answered " + d.response.status,
  el("div", {}, d.forward && d.response.status === d.forward.status ? cut() : "", message(d.response))));
  if (d.forward) {
    const f = d.forward;
    const title = f.error ? "forward to " + f.url + " failed: " + f.error
      : "the receiver (" + f.url + ") answered " + f.status + " in " + f.latencyMs.toFixed(1) + " ms";
    out.append(section(title, f.error ? "" : el("div", {}, cut(), message(f))));
  }
  return out;
}

// message shows an answer; one that came compressed (Content-Encoding)
// decoded, as the HAR export has it: its gzip bytes in base64 read as
// noise where the receiver's JSON was.
function message(m) {
  if (m.decoded) {
    return el("div", {}, table(m.headers, "No headers."),
      el("p", { class: "hint" }, "Decoded from its Content-Encoding (" + m.decoded + "): the answer below; it came compressed."),
      el("pre", { class: "body" }, m.contentEncoding === "base64" ? "(base64) " + m.content : m.content));
  }
  return el("div", {}, table(m.headers, "No headers."),
    el("pre", { class: "body" }, m.bodyEncoding === "base64" ? "(base64) " + m.body : m.body));
}

// faultNote says what listen --fault did to the call: the body shown is
// still what the sender sent.
function faultNote(d) {
  const f = d.fault;
  if (!f) return "";
  const kind = f.arg ? f.kind + ":" + f.arg : f.kind;
  return el("p", { class: "note warning fault" }, el("strong", {}, "FAULT " + kind),
    " (attempt " + f.attempt + "): the sender got " + f.sender + "; the receiver got " + f.receiver + ".");
}

// flagsList is the FLAG lines listen printed under the call; one that
// judges another call (of: a re-delivery refused before this, its
// accepted original, was answered) links to it, as listen's line names it.
function flagsList(d) {
  if (!d.flags.length) return "";
  return el("ul", { class: "flags" }, d.flags.map((f) =>
    el("li", {}, el("span", { class: "sev" }, "FLAG"), " ", el("span", { class: "rule" }, f.check),
      f.of ? el("span", { class: "of" }, ", of call ", el("a", { href: "#/calls/" + f.of, "data-id": String(f.of) }, "#" + f.of), " (printed before this one)") : null,
      ": ", el("span", { class: "msg" }, f.reason))));
}

// links lists related calls, each a link to it; this one is not a link.
function links(cls, title, list, self, notShown, term) {
  if (!list || !list.length) return "";
  const items = [];
  for (const l of list) {
    if (items.length) items.push(" → ");
    // An event or a document number a sender wrote with a bidi control
    // shows its escape: the control reordered the links after it.
    const text = ["#" + l.id + " ", shown(l.event || "(no businessType)")];
    items.push(l.id === self ? el("strong", { class: "self" }, text) : el("a", { href: "#/calls/" + l.id, "data-id": String(l.id) }, text));
  }
  return el("p", { class: "links " + cls }, shown(title), ": ", items, notShownNote(notShown, term));
}

// notShownNote says how many related calls the links leave out (the API
// lists the nearest 50), and offers the search that lists them: the list
// stopped at 50 and said nothing of the rest.
function notShownNote(ns, term) {
  if (!ns) return "";
  const parts = [];
  if (ns.older) parts.push((ns.olderAtLeast ? "at least " : "") + ns.older + " older");
  if (ns.newer) parts.push(ns.newer + " newer");
  const note = el("span", { class: "not-shown" }, " (" + parts.join(" and ") + " not shown");
  if (term) {
    note.append(": ", el("a", { href: "#", class: "search-related", onclick: (e) => {
      e.preventDefault();
      $("f-q").value = term;
      relist();
    } }, "search the list for ", shown(term)));
  }
  note.append(")");
  return note;
}

function findingsList(d) {
  if (!d.findingList.length) return el("p", { class: "findings none" }, "No findings: the call matches the spec.");
  const list = el("ul", { class: "findings" }, d.findingList.map((f) =>
    el("li", { class: f.severity },
      el("span", { class: "sev" }, f.severity), " ",
      el("a", { href: "#", class: "path", onclick: (e) => { e.preventDefault(); reveal(f.at); } }, f.path || "(body)"), " ",
      el("span", { class: "rule" }, f.rule), " ",
      el("span", { class: "msg" }, f.message))));
  if (d.findings <= d.findingList.length) return list;
  // The inspector keeps a call's first findings (the API's findingList).
  return el("div", {}, el("p", { class: "note warning more-findings" }, "The first " + d.findingList.length + " of " + d.findings +
    " findings: whsim validate lists them all."), list);
}

// reveal opens the tree down to a path and highlights it, building the
// branches on the way that are not built yet.
function reveal(path) {
  for (;;) {
    const n = [...document.querySelectorAll(".tree [data-path]")].find((x) => x.dataset.path === path);
    if (n) {
      for (let p = n.parentElement; p; p = p.parentElement) if (p.tagName === "DETAILS") p.open = true;
      n.scrollIntoView({ block: "center" });
      n.classList.add("flash");
      setTimeout(() => n.classList.remove("flash"), 1200);
      return;
    }
    // Each built branch that holds the path builds its members up to the
    // one on the way; a round goes one level deeper.
    let deeper = false;
    for (const det of document.querySelectorAll(".tree details.branch")) {
      const b = branches.get(det);
      const i = (b.n.children || []).findIndex((c) => c.path === path || holds(c.path, path));
      if (i >= b.shown) {
        grow(b, { left: TREE_BUDGET }, i + 1 - b.shown);
        deeper = true;
      }
    }
    if (!deeper) return;
  }
}

// holds says the value at path a holds the one at path b.
function holds(a, b) {
  return b.startsWith(a) && (b[a.length] === "." || b[a.length] === "[");
}

// BIDI_OR_INVISIBLE are the characters that reorder the text drawn after
// them (U+202E drew a value "12345" beside its key as "54321") or draw
// nothing: listen's terminal escapes them, and so does the tree.
const BIDI_OR_INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

// literal is s as a JSON string literal with those characters as \uXXXX
// escapes: still the JSON of the same string. The API leaves out an empty
// string (omitempty): undefined is "".
function literal(s) {
  return JSON.stringify(s ?? "").replace(BIDI_OR_INVISIBLE, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

function label(n) {
  if (n.key !== undefined) return el("span", { class: "key" }, literal(n.key));
  if (n.index !== undefined) return el("span", { class: "idx" }, String(n.index));
  return null;
}

// A large body's tree is built as it is looked at: a call opens with
// about TREE_BUDGET values built (each was 130 µs of a frozen tab: 6.5 s
// for 48,001), a branch past them starts folded and builds its members
// when opened, and a branch shows TREE_CHUNK members, then "show more".
const TREE_BUDGET = 2000;
const TREE_CHUNK = 500;

// branches maps a branch's <details> to its node, the box of its members
// and how many of them are built.
const branches = new WeakMap();

// node builds a value's element; budget.left counts down the values a
// call's opening builds.
function node(n, findings, budget) {
  budget.left--;
  const notes = (n.findings || []).map((i) => findings[i]).map((f) =>
    el("div", { class: "note " + f.severity }, "⚠ " + f.rule + ": " + f.message));
  if (n.kind === "object" || n.kind === "array") {
    const open = n.kind === "object" ? "{" : "[";
    const close = n.kind === "object" ? "}" : "]";
    const count = (n.children || []).length;
    const lbl = label(n);
    const box = el("div", { class: "kids" });
    const det = el("details", { class: "branch" + (notes.length ? " has-finding" : ""), "data-path": n.path },
      el("summary", {}, lbl, lbl ? ": " : "", open, el("span", { class: "count" }, " " + count + " " + (n.kind === "object" ? "member" : "item") + (count === 1 ? " " : "s ")), close),
      notes, box);
    const b = { n, findings, box, shown: 0, more: null };
    branches.set(det, b);
    if (budget.left > 0) {
      det.open = true;
      grow(b, budget, TREE_CHUNK);
    }
    det.addEventListener("toggle", () => { if (det.open && b.shown === 0) grow(b, { left: TREE_BUDGET }, TREE_CHUNK); });
    return det;
  }
  let v;
  switch (n.kind) {
    case "string": v = el("span", { class: "str" }, literal(n.value)); break;
    case "null": v = el("span", { class: "lit" }, "null"); break;
    case "bool": v = el("span", { class: "lit" }, n.value); break;
    default: v = el("span", { class: "numv" }, n.value);
  }
  if (n.time) v = el("span", {}, v, " ", el("span", { class: "when", title: "milliseconds since 1970, in Asia/Shanghai" }, n.time));
  const lbl = label(n);
  return el("div", { class: "leaf" + (notes.length ? " has-finding" : ""), "data-path": n.path }, lbl, lbl ? ": " : "", v, notes);
}

// grow builds up to count more of a branch's members, and a button for
// the rest.
function grow(b, budget, count) {
  const kids = b.n.children || [];
  const end = Math.min(kids.length, b.shown + count);
  // The button pressed goes: the focus goes on to the next one, or to the
  // branch's heading once all is shown, not back to the page's start.
  const had = b.more !== null && b.more === document.activeElement;
  if (b.more) b.more.remove();
  b.more = null;
  for (let i = b.shown; i < end; i++) b.box.append(node(kids[i], b.findings, budget));
  b.shown = end;
  if (end < kids.length) {
    b.more = el("button", { type: "button", class: "more" }, "show " + Math.min(TREE_CHUNK, kids.length - end) + " more of " + kids.length);
    b.more.addEventListener("click", () => grow(b, { left: TREE_BUDGET }, TREE_CHUNK));
    b.box.append(b.more);
  }
  if (had) (b.more || b.box.parentElement.querySelector(":scope > summary")).focus();
}

function rawView(d) {
  const box = el("div", {}, el("p", { class: "hint" }, "Loading…"));
  const sec = el("details", { class: "raw" }, el("summary", {}, "Raw bytes (" + size(d.size) + (d.bodyEncoding === "base64" ? ", not UTF-8: hex" : "") + ")"), box);
  sec.addEventListener("toggle", async () => {
    if (!sec.open || box.dataset.loaded) return;
    box.dataset.loaded = "1";
    box.replaceChildren(el("p", { class: "hint" }, "Loading…"));
    let buf;
    try {
      buf = await rawBytes(d.id);
    } catch (err) {
      // Said as a failure, never shown as the body: the server's error
      // is JSON that could pass for a call's. Reopening asks again.
      delete box.dataset.loaded;
      box.replaceChildren(el("p", { class: "error" }, "The raw bytes could not load: " + err.message));
      return;
    }
    showRaw(box, buf, d.bodyEncoding === "base64");
  });
  return sec;
}

// The raw bytes show a part at a time, as a large tree does: a 10 MB body
// that is not UTF-8 went on the page whole, a hex dump of 48 million
// characters that froze the tab for 9 s.
const RAW_HEX_CHUNK = 64 << 10;
const RAW_TEXT_CHUNK = 1 << 20;

// showRaw puts the first part of buf in box, as hex or as text, and a
// button for the next; each part goes on where the last ended (a
// character cut between two parts is decoded whole, the offsets count on).
function showRaw(box, buf, hex) {
  const pre = el("pre", { class: "body" });
  const more = el("button", { type: "button", class: "more" });
  const step = hex ? RAW_HEX_CHUNK : RAW_TEXT_CHUNK;
  const text = new TextDecoder();
  let shown = 0;
  const grow = () => {
    const end = Math.min(buf.length, shown + step);
    const part = buf.subarray(shown, end);
    pre.append(hex ? (shown ? "\n" : "") + hexdump(part, shown) : text.decode(part, { stream: end < buf.length }));
    shown = end;
    if (shown < buf.length) {
      more.textContent = "show " + size(Math.min(step, buf.length - shown)) + " more of " + size(buf.length);
      return;
    }
    // The button pressed goes: the focus goes to the section's heading.
    const had = more === document.activeElement;
    more.remove();
    if (had) box.parentElement.querySelector(":scope > summary").focus();
  };
  more.addEventListener("click", grow);
  box.replaceChildren(pre, more);
  grow();
}

// rawBytes returns a call's body as sent; it throws, saying why, when the
// server refuses it (its JSON error, the status) or nothing answers.
async function rawBytes(id) {
  let r;
  try {
    r = await fetch("api/calls/" + id + "/raw");
  } catch (err) {
    throw new Error("no answer from the inspector (" + err.message + ")");
  }
  if (!r.ok) {
    let why = r.statusText;
    try {
      why = (await r.json()).error || why;
    } catch {
      // not the API's JSON (a proxy's page, say): the status says enough
    }
    if (r.status === 401) $("auth").hidden = false;
    throw new Error(r.status + (why ? " " + why : ""));
  }
  return new Uint8Array(await r.arrayBuffer());
}

// hexdump is b as hex, 16 bytes a line, the offsets counted from offset.
function hexdump(b, offset) {
  const lines = [];
  for (let i = 0; i < b.length; i += 16) {
    const chunk = Array.from(b.slice(i, i + 16));
    const hex = chunk.map((x) => x.toString(16).padStart(2, "0")).join(" ").padEnd(47);
    const asc = chunk.map((x) => (x >= 0x20 && x < 0x7f ? String.fromCharCode(x) : ".")).join("");
    lines.push((offset + i).toString(16).padStart(8, "0") + "  " + hex + "  |" + asc + "|");
  }
  return lines.join("\n");
}

async function copy(text, btn) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const t = el("textarea", {});
    t.value = text;
    document.body.append(t);
    t.select();
    document.execCommand("copy");
    t.remove();
  }
  const was = btn.textContent;
  btn.textContent = "copied";
  setTimeout(() => { btn.textContent = was; }, 1000);
}

function actions(d) {
  const bar = el("div", { class: "actions" });
  const diffOut = el("div", { class: "diff" });
  if (d.bodyGone) {
    // Nothing that needs the body is offered: a copied curl sent an empty
    // body, another call than this one, and the download, replay and diff
    // are refused (410). Said where the buttons were, not left to guess.
    bar.append(el("p", { class: "hint gone" }, "No curl or whsim send command, download, replay or diff: this call's body left memory (see below), and a command without it would send another call."));
  } else if (d.rejected) {
    // Listen never read it: no body was kept (whsim replay skips such a
    // record too). Whose doing it was is said: listen's stop is not the
    // sender's fault.
    bar.append(el("p", { class: "hint gone" }, "No curl or whsim send command, download, replay or diff: " +
      (d.rejected.closedAtStop ? "listen's stop closed this request unread as it arrived (Ctrl-C or SIGTERM)"
        : "the HTTP server refused this request before listen could read it") +
      ", so no body was kept, and a command without it would send another call."));
  } else if (d.tooLarge) {
    // The capture has the body; whsim does not read a record that large.
    bar.append(el("p", { class: "hint gone" }, "No curl or whsim send command, download, replay or diff: " + d.notKept + "."));
  } else if (d.bodyOverLimit) {
    // Listen did not keep the body: an empty one in its place would be a
    // call the sender never made (whsim replay skips such a record too).
    bar.append(el("p", { class: "hint gone" }, "No curl or whsim send command, download, replay or diff: this call's body was over listen's --max-body of " + d.bodyOverLimit + " bytes and was not kept, and a command without it would send another call."));
  } else {
    if (d.noCommand) {
      // Its record would not go out as the request it says (a capture
      // edited by hand): a command would send another, as whsim replay
      // says when it refuses the record.
      bar.append(el("p", { class: "hint no-command" }, "No curl or whsim send command: this record is no request to send again (" + d.noCommand + ")."));
    } else {
      const curl = el("button", { type: "button" }, "copy as curl");
      curl.addEventListener("click", () => copy(d.curl, curl));
      bar.append(curl);
    }
    if (d.send) {
      const send = el("button", { type: "button" }, "copy as whsim send");
      send.addEventListener("click", () => copy(d.send, send));
      bar.append(send);
    }
    const dl = el("a", { class: "button", href: "api/calls/" + d.id + "/raw?download", download: d.file }, "download body");
    const base = el("button", { type: "button", id: "diff-base" }, state.base === d.id ? "diff base" : "set as diff base");
    base.addEventListener("click", () => { state.base = d.id; base.textContent = "diff base"; });
    bar.append(dl, base);
    // No whsim send command that would fail or send another call: why,
    // where its button would be (copy as curl sends it).
    if (!d.send && d.noSend) bar.append(el("p", { class: "hint no-send" }, "No whsim send command: " + d.noSend + "; copy as curl sends it."));
    if (state.base && state.base !== d.id) bar.append(diffButton(d.id, diffOut));
  }
  const out = el("div", {}, bar);
  if (d.cutShort) {
    // As whsim replay warns: each sends what was recorded, not the call.
    out.append(el("p", { class: "note warning cut-short" }, "Its body came cut short (" + d.cutShort.declared + " bytes declared, " +
      d.cutShort.recorded + " recorded): the commands, the download and replay have the " + d.cutShort.recorded + " bytes recorded, not the call the sender made."));
  }

  if (state.info && state.info.replay && !d.bodyGone && !d.notKept) {
    // The box starts at the last target replayed to in this run of the
    // inspector (the server keeps it, for every page of the run), else at
    // --forward-to's URL, else empty. Nothing outlives the run: a listen
    // started again, with another --forward-to, starts at that one.
    const url = el("input", { id: "replay-url", type: "url", size: "40", placeholder: "your receiver's URL" });
    url.value = state.info.replayTarget || "";
    const res = el("div", { id: "replay-result" });
    const send = el("button", { type: "submit", id: "replay" }, "replay");
    const form = el("form", { class: "replay" }, "replay to ", url, " ", send);
    // The call opened again shows its replay still sending, or its answer.
    const shown = state.replays.get(d.id);
    if (shown) res.append(shown.said);
    send.disabled = Boolean(shown && shown.sending);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      // One replay of a call at a time from this page: a second press (or
      // Enter in the box) while the first is sending sent the call twice.
      const now = state.replays.get(d.id);
      if (now && now.sending) return;
      const host = otherMachine(url.value);
      if (host && !confirm("Replay call #" + d.id + " to " + host + "? That is not this machine: the call goes as it was captured, its credentials unmasked.")) {
        showReplay(d.id, false, el("p", { class: "hint" }, "Not sent."));
        return;
      }
      state.info.replayTarget = url.value;
      showReplay(d.id, true, el("p", { class: "hint" }, "Sending… (replay is off until the receiver answers: the call is not sent twice)"));
      let said;
      try {
        const r = await getJSON("api/calls/" + d.id + "/replay", {
          method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ url: url.value }),
        });
        said = r.error
          ? el("p", { class: "error" }, "no answer: " + r.error)
          : el("div", {}, el("p", {}, el("span", { class: "status " + statusClass(r.status) }, String(r.status)), " in " + r.latencyMs.toFixed(1) + " ms"),
            el("pre", { class: "body" }, r.bodyEncoding === "base64" ? "(base64) " + r.body : r.body));
      } catch (err) {
        said = el("p", { class: "error" }, String(err.message));
      }
      showReplay(d.id, false, said);
    });
    out.append(form, res);
  }
  out.append(diffOut);
  return out;
}

// diffButton compares the diff base's body with call id's, in out.
function diffButton(id, out) {
  const btn = el("button", { type: "button", id: "diff" }, "diff with #" + state.base);
  btn.addEventListener("click", async () => {
    const a = state.base;
    try {
      out.replaceChildren(diffView(await getJSON("api/diff?a=" + a + "&b=" + id), a, id));
    } catch (err) {
      // Said where the diff goes: swallowed, the press did nothing.
      out.replaceChildren(el("p", { class: "error" }, "The diff of #" + a + " and #" + id + " could not load: " + err.message));
    }
  });
  return btn;
}

// showReplay keeps what the page says of call id's replay and whether it
// is sending, and shows it in the call's replay box if the call is open:
// the box the replay was pressed in is gone once another call was opened,
// and the answer went there, unseen, while the call opened again offered
// replay as if none were sending.
function showReplay(id, sending, said) {
  state.replays.set(id, { sending, said });
  const box = document.querySelector('.detail[data-id="' + id + '"]');
  if (!box) return;
  box.querySelector("#replay-result").replaceChildren(said);
  box.querySelector("#replay").disabled = sending;
}

// otherMachine is the host a replay URL names when it is not this
// machine's loopback (localhost, 127.0.0.0/8, [::1]), as the browser reads
// it; "" for loopback, and for a URL it cannot read (the server says why).
// A replay sends a call's captured headers, credentials and all: a typo
// in the box must not send them to another machine unasked.
function otherMachine(u) {
  let host;
  try {
    host = new URL(u).hostname;
  } catch {
    return "";
  }
  return host === "localhost" || host === "[::1]" || /^127(\.\d+){3}$/.test(host) ? "" : host;
}

function diffView(d, a, b) {
  // A requestId, a name or a value shows a bidi control as its escape, as
  // the tree does: "r\u202e1 → r-2" reordered the sentence after it.
  const rid = d.requestId.differ
    ? el("p", { class: "note warning" }, "requestId differs (", shown(d.requestId.a || "-"), " → ", shown(d.requestId.b || "-"), "): expected between deliveries, left out below.")
    : el("p", { class: "hint" }, "Same requestId: ", shown(d.requestId.a || "-"));
  if (!d.differences.length) return el("div", {}, rid, el("p", {}, "The bodies of #" + a + " and #" + b + " are the same JSON (member order aside)."));
  return el("div", {}, rid, el("table", { class: "kv diff" },
    el("tr", {}, el("th", {}, "path"), el("th", {}, "change"), el("th", {}, "#" + a), el("th", {}, "#" + b)),
    d.differences.map((x) => el("tr", { class: x.kind }, el("td", {}, shown(x.path || "(body)")), el("td", {}, x.kind), el("td", {}, shown(x.a || "")), el("td", {}, shown(x.b || ""))))),
    d.more ? el("p", { class: "note warning" }, "… and " + d.more + " more difference" + (d.more === 1 ? "" : "s") + ", not listed: compare the raw bytes of the two calls for the rest.") : null);
}

// ---- start ----

function debounce(f, ms) {
  let t;
  return () => { clearTimeout(t); t = setTimeout(f, ms); };
}

document.addEventListener("keydown", (e) => {
  const typing = e.target.matches("input, select, textarea");
  if (e.key === "Escape" && typing) { e.target.blur(); return; }
  // Escape in the call shown goes back to its row in the list.
  if (e.key === "Escape" && $("detail-pane").contains(e.target) && state.open !== null) {
    const tr = $("rows").querySelector('tr[data-id="' + Number(state.open) + '"]');
    if (tr) {
      select(tr, true);
      e.preventDefault();
    }
    return;
  }
  if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
  // Enter on a link, a button or a section's heading is theirs (follow,
  // press, fold): taking it would leave a keyboard nothing to press with.
  if (e.key === "Enter" && e.target.matches("a[href], button, summary")) return;
  // Space and Home/End are the page's (scroll) but on a row of the list.
  const onRow = e.target.matches("#rows tr");
  switch (e.key) {
    case "j": case "ArrowDown": move(1); break;
    case "k": case "ArrowUp": move(-1); break;
    case "Home": if (!onRow) return; select($("rows").firstElementChild, true); break;
    case "End": if (!onRow) return; select($("rows").lastElementChild, true); break;
    case " ": if (!onRow) return; // falls through: Space opens the row, as Enter does
    case "Enter": if (state.selected) openLink(Number(state.selected.dataset.id)); break;
    case "/": $("f-q").focus(); break;
    default: return;
  }
  e.preventDefault();
});

// start asks the inspector's info, then lists; either failing is said
// and tried again (see listFailed).
async function start() {
  try {
    state.info = await getJSON("api/info");
  } catch (err) {
    listFailed(err, start);
    return;
  }
  $("source").textContent = state.info.source;
  for (const ev of state.info.events) $("f-event").append(el("option", { value: ev }, ev));
  state.events = new Set(state.info.events);
  $("f-event").append(el("option", { value: "-" }, "(no businessType)"));
  // A new listing closes the live stream first: one that fails must say
  // so and try again (relist), or the list stops being live unsaid.
  const refilter = debounce(relist, 200);
  for (const id of ["f-event", "f-verdict"]) $(id).addEventListener("change", () => relist());
  // Text an input method is composing (the pinyin of a Chinese name) is
  // not searched for until it is committed: the page listed the calls
  // matching each step ("s", "su", ... "suzhou") as the user chose
  // characters.
  for (const id of ["f-status", "f-q"]) $(id).addEventListener("input", (e) => { if (!e.isComposing) refilter(); });
  $("f-q").addEventListener("compositionend", refilter);
  $("f-status").addEventListener("input", checkStatus);
  $("filters").addEventListener("submit", (e) => e.preventDefault());
  $("older").addEventListener("click", loadOlder);
  $("newer").addEventListener("click", showNewer);
  window.addEventListener("hashchange", route);
  await relist();
  route();
}

start();
