// The table console: follows the referee's event stream and draws the state; the buttons post actions
// with the PIN typed here (kept in the field only) and the CSRF token of the page.
"use strict";

const $ = (id) => document.getElementById(id);
const csrf = document.querySelector('meta[name="csrf-token"]').content;
const SAYS_SHOWN = 200;
let state = null;
let historyTimer = null;

function text(el, value) {
  el.textContent = value === null || value === undefined || value === "" ? "–" : String(value);
}

function element(tag, className, content) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (content !== undefined) el.textContent = content;
  return el;
}

function showState(s) {
  state = s;
  const stopped = s.refereeing === false ? " (the referee has stopped)" : "";
  text($("status"), s.stage_words + (s.status && s.status !== s.stage_words ? " — " + s.status : "") + stopped);
  text($("on-roll"), s.on_roll);
  text($("dice"), s.dice ? s.dice.join("-") : null);
  const length = s.match_length ? ` (${s.match_length}-point match${s.crawford ? ", Crawford game" : ""})` : " (money play)";
  text($("score"), `light ${s.score.light}, dark ${s.score.dark}` + length);
  text($("cube"), s.cube ? (s.cube.in_play ? `${s.cube.value}, ${s.cube.owner || "centred"}` : s.cube.why_not) : null);
  text($("game"), s.game_number ? `game ${s.game_number}` : "not started");
  const verdict = $("verdict");
  verdict.className = "verdict " + (s.last_verdict ? s.last_verdict.verdict : "none");
  verdict.textContent = s.last_verdict ? `${s.last_verdict.verdict}: ${s.last_verdict.text}` : "no verdict yet";
  const question = $("question");
  const asked = s.question ? `Is the play ${s.question}? Press accept to confirm.` :
    s.dice_question ? `Are the dice ${s.dice_question.join(" and ")}? Press accept to confirm.` : "";
  question.hidden = !asked;
  question.textContent = asked;
  $("board").innerHTML = s.board_svg;  // drawn by the referee itself: no script, no outside reference
  text($("position-id"), s.position_id);
  text($("match-id"), s.match_id);
  text($("xgid"), s.xgid);
  showLegal(s);
  showSettings(s);
}

function showLegal(s) {
  const list = $("legal");
  list.replaceChildren();
  $("legal-off").hidden = s.legal_shown;
  if (!s.legal_shown) return;
  if (!s.legal_plays) {
    list.append(element("li", "none", "no roll to play now"));
    return;
  }
  for (const p of s.legal_plays) {
    const li = element("li", "play", p.play);
    li.append(" ", element("code", "id", p.position_id));
    list.append(li);
  }
}

let settingsShown = false;
function showSettings(s) {
  const note = $("settings-note");
  note.textContent = s.settings.can_configure ? "" :
    "the match has begun: length and rules change before the first game of the next match";
  $("match-length").disabled = !s.settings.can_configure;
  $("show-legal").checked = s.legal_shown;
  if (settingsShown && !s.settings.can_configure) return;
  const box = $("rules");
  box.querySelectorAll("label").forEach((l) => l.remove());
  for (const [name, value] of Object.entries(s.settings.rules)) {
    const label = element("label", "rule");
    const input = document.createElement("input");
    input.dataset.rule = name;
    input.disabled = !s.settings.can_configure;
    if (typeof value === "boolean") {
      input.type = "checkbox";
      input.checked = value;
    } else {
      input.type = "number";
      input.value = value;
      input.step = 1;
    }
    label.append(input, " " + name.replaceAll("_", " "));
    box.append(label);
  }
  if (!settingsShown || document.activeElement !== $("match-length")) {
    $("match-length").value = s.settings.match_length;
  }
  settingsShown = true;
}

function addSay(say) {
  const li = element("li", say.signal ? "say " + say.signal : "say", say.text);
  li.value = say.id;
  li.dataset.id = say.id;
  const list = $("says");
  list.prepend(li);
  while (list.children.length > SAYS_SHOWN) list.lastElementChild.remove();
  clearTimeout(historyTimer);
  historyTimer = setTimeout(loadHistory, 800);
}

async function loadHistory() {
  let data;
  try {
    const answer = await fetch("/api/history", { cache: "no-store" });
    data = await answer.json();
  } catch (e) {
    return;
  }
  const box = $("history");
  box.replaceChildren();
  if (data.note) box.append(element("p", "note", data.note));
  for (const m of data.matches) {
    const match = element("section", "match");
    const title = element("h3", null, `${m.length ? m.length + "-point match" : "money play"} ${m.id}: light ${m.score.light}, dark ${m.score.dark}${m.finished ? " (finished)" : ""} `);
    const mat = element("a", "mat", "download .mat");
    mat.href = m.mat;
    title.append(mat);
    match.append(title);
    for (const g of m.games) match.append(gameSection(g));
    box.append(match);
  }
}

function gameSection(g) {
  const d = element("details", "game");
  d.open = !g.finished;
  const result = g.finished ? `${g.winner} wins ${g.points}` : "in progress";
  d.append(element("summary", null, `game ${g.number}${g.crawford ? " (Crawford)" : ""}: ${result}`));
  const calls = element("ol", "calls");
  for (const c of g.calls) {
    const li = element("li", "call " + c.kind + (c.verdict ? " " + c.verdict : ""), c.text);
    if (c.reason && !c.text.includes(c.reason)) li.append(element("span", "reason", " (" + c.reason + ")"));
    if (c.evidence) {
      const a = element("a", "evidence", "the frame");
      a.href = c.evidence;
      a.target = "_blank";
      li.append(" ", a);
    }
    calls.append(li);
  }
  d.append(element("h4", null, "calls"), calls);
  const table = element("table", "positions");
  const head = element("tr");
  for (const h of ["after", "Position ID", "Match ID", "XGID"]) head.append(element("th", null, h));
  table.append(head);
  for (const p of g.positions) {
    const tr = element("tr");
    tr.append(element("td", null, p.text), element("td", "id", p.position_id),
      element("td", "id", p.match_id || "–"), element("td", "id", p.xgid || "–"));
    table.append(tr);
  }
  d.append(element("h4", null, "positions"), table);
  return d;
}

async function act(path, body) {
  const answer = $("answer");
  body.pin = $("pin").value;
  answer.className = "answer";
  answer.textContent = "…";
  let reply;
  try {
    reply = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body),
      cache: "no-store",
    });
  } catch (e) {
    answer.className = "answer refused";
    answer.textContent = "the referee cannot be reached";
    return;
  }
  const data = await reply.json().catch(() => ({}));
  if (!reply.ok) {
    answer.className = "answer refused";
    answer.textContent = `refused: ${data.error || reply.status}`;
    return;
  }
  answer.className = "answer done";
  answer.textContent = data.said && data.said.length ? data.said.join(" / ") : data.queued ? "queued" : "done";
}

function setUp() {
  $("buttons").addEventListener("submit", (e) => e.preventDefault());  // buttons post by themselves
  for (const b of document.querySelectorAll("button.press")) {
    b.addEventListener("click", () => act("/api/press", { button: b.dataset.button }));
  }
  for (const b of document.querySelectorAll("button.copy")) {
    b.addEventListener("click", () => {
      const value = $(b.dataset.copy).textContent;
      if (navigator.clipboard) navigator.clipboard.writeText(value).catch(() => {});
    });
  }
  $("save-settings").addEventListener("click", () => {
    const body = { show_legal: $("show-legal").checked };
    if (state && state.settings.can_configure) {
      body.match_length = Number($("match-length").value);
      body.rules = {};
      for (const input of document.querySelectorAll("#rules input")) {
        body.rules[input.dataset.rule] = input.type === "checkbox" ? input.checked : Number(input.value);
      }
    }
    act("/api/settings", body);
  });
  const since = document.querySelector('meta[name="events-since"]').content;
  const events = new EventSource(`/api/events?since=${since}`);
  events.addEventListener("open", () => {
    $("link").className = "link online";
    $("link").textContent = "live";
  });
  events.addEventListener("error", () => {
    $("link").className = "link offline";
    $("link").textContent = "reconnecting…";
  });
  events.addEventListener("say", (e) => addSay(JSON.parse(e.data)));
  events.addEventListener("state", (e) => showState(JSON.parse(e.data)));
  events.addEventListener("frame", (e) => {
    $("frame").src = `/frame.jpg?n=${JSON.parse(e.data).number}`;
  });
  events.addEventListener("reset", () => {
    $("says").replaceChildren();
    loadHistory();
  });
  loadHistory();
}

document.addEventListener("DOMContentLoaded", setUp);
