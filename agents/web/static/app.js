// The pages of `duel serve`: a form becomes a JSON request, its document becomes the
// answer on the page. Every word shown comes from the document (the system's own
// presentation), never from this file.
"use strict";

const page = document.body.dataset.page;
const system = document.body.dataset.system;
const form = document.getElementById("ask");
const answer = document.getElementById("answer");
const problem = document.getElementById("problem");
const RULES_KEY = "duel.ruleset";

// ---------- small helpers

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}
const pct = (p) => `${(100 * p).toFixed(2)}%`;
const short = (p) => `${(100 * p).toFixed(p < 0.1 && p > 0 ? 1 : 0)}%`;
const svgNS = "http://www.w3.org/2000/svg";
function svg(tag, attributes = {}) {
  const node = document.createElementNS(svgNS, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

class Problem extends Error {
  constructor(message, field) { super(message); this.field = field; }
}

async function call(method, path, body, raw = false) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.body = raw ? body : JSON.stringify(body);
    options.headers["Content-Type"] = raw ? "application/octet-stream" : "application/json";
  }
  const response = await fetch(path, options);
  let data;
  try { data = await response.json(); } catch { data = { error: await response.text() }; }
  if (response.status >= 400 && response.status !== 409) {
    throw new Problem(data.error || `error ${response.status}`, data.field);
  }
  return { status: response.status, data };
}

// ---------- the rules in every page's header

function rules() {
  try { return JSON.parse(localStorage.getItem(RULES_KEY)) || null; } catch { return null; }
}
function showRules() {
  const box = document.getElementById("rules");
  const chosen = rules();
  box.replaceChildren();
  if (!chosen) { box.textContent = "Rules: the defaults"; return; }
  box.append(`Rules of ${chosen.system}: your file, hash ${chosen.hash} (defaults ${chosen.default_hash})`);
  if (chosen.differences.length) {
    const list = el("ul", { class: "differences" });
    for (const d of chosen.differences) {
      list.append(el("li", { text: `${d.key}: ${JSON.stringify(d.default)} → ${JSON.stringify(d.value)}` }));
    }
    box.append(list);
  } else box.append(" (the same as the defaults)");
  if (system && chosen.system !== system) box.append(el("span", { class: "note", text: ` — not used on ${system}` }));
}

// ---------- errors marked at their field

function clearProblems() {
  problem.hidden = true;
  for (const span of document.querySelectorAll(".error")) span.textContent = "";
  for (const bad of document.querySelectorAll(".bad")) bad.classList.remove("bad");
}
function mark(error) {
  let field = error.field || "";
  let span = null;
  while (field && !(span = document.querySelector(`.error[data-for="${CSS.escape(field)}"]`))) {
    field = field.includes(".") ? field.slice(0, field.lastIndexOf(".")) : "";
  }
  if (span) {
    span.textContent = error.message;
    const input = form.querySelector(`[name="${CSS.escape(field)}"]`);
    (input || span.closest("fieldset") || span).classList.add("bad");
    const details = span.closest("details");
    if (details) details.open = true;
    span.scrollIntoView({ block: "center" });
  }
  problem.textContent = error.message;
  problem.hidden = false;
}

// ---------- what an empty field keeps: the reference sheet's value, else the default

function sheetValues(fieldset) {
  const picker = fieldset && fieldset.querySelector("select[name$='.sheet']");
  const chosen = picker && picker.selectedOptions[0];
  return chosen && chosen.dataset.fields ? { sheet: chosen.value, values: JSON.parse(chosen.dataset.fields) } : { values: {} };
}
function kept(input) {
  const name = input.name.split(".")[1];
  const { values } = sheetValues(input.closest("fieldset.sheet"));
  return name in values ? values[name] : input.dataset.default;
}
// a box left as it was follows what is kept; one the user changed stays as he set it
function showKept(within) {
  for (const input of within.querySelectorAll("[data-kind]")) {
    const value = kept(input);
    const sheet = sheetValues(input.closest("fieldset.sheet")).sheet || "default";
    if (input.type === "checkbox") {
      if (input.checked === (input.dataset.kept === "true")) input.checked = value === "true";
    } else if (input.tagName === "SELECT") input.options[0].textContent = value ? `${sheet} (${value})` : sheet;
    else input.placeholder = value;
    input.dataset.kept = value;
  }
}
// the values an uploaded ruleset gives the fields (its `shown`), on the pages of its system
function keptUnder(shown) {
  for (const input of form.querySelectorAll("[data-kind]")) {
    const [part, name] = input.name.split(".");
    input.dataset.default = (part === "options" ? shown.options : shown.sheet)[name] ?? "";
  }
  for (const picker of form.querySelectorAll("fieldset.sheet select[name$='.sheet']")) {
    for (const option of picker.options) {
      if (option.value in shown.references) option.dataset.fields = JSON.stringify(shown.references[option.value]);
    }
  }
}

// ---------- the form as a request

function gameRequest() {
  const request = { system: form.system.value, options: {}, a: {}, b: {} };
  for (const input of form.querySelectorAll("input[data-kind], select[data-kind], select[name$='.sheet']")) {
    const [part, name] = input.name.split(".");
    if (!name) continue;
    // a box says what is played: it is sent only where it differs from what is kept
    if (input.type === "checkbox") {
      if (input.checked !== (kept(input) === "true")) request[part][name] = input.checked;
      continue;
    }
    const value = input.value.trim();
    if (value !== "") request[part][name] = value;
  }
  if (form.side) request.side = form.side.value;
  const chosen = rules();
  if (chosen && chosen.system === request.system) request.ruleset = chosen.ruleset;
  return request;
}

async function opponent() {
  const kind = form.querySelector("[name=vs_kind]:checked").value;
  if (kind === "equilibrium") return "equilibrium";
  if (kind === "personality") return `${form.vs_personality.value}:${form.vs_strength.value}`;
  if (kind === "mix") {
    const text = form.vs_mix.value.trim();
    return text.startsWith("mix=") ? text : `mix=${text}`;
  }
  const file = form.vs_profile.files[0];
  if (!file) throw new Problem("choose a profile file to upload", "vs");
  return { profile: await uploadProfile(file) };
}

async function uploadProfile(file) {
  try {
    const { data } = await call("POST", "/api/upload/profile", await file.arrayBuffer(), true);
    return data.profile;
  } catch (error) { throw new Problem(error.message, "vs"); }
}

// ---------- long work: progress, estimate, cancel

const progress = document.getElementById("progress");
let running = null;
document.getElementById("cancel").addEventListener("click", async () => {
  if (running) await call("DELETE", `/api/jobs/${running}`);
});

async function work(kind, request) {
  let { data: status } = await call("POST", `/api/jobs/${kind}`, request);
  running = status.job;
  try {
    while (status.state === "waiting" || status.state === "running") {
      await new Promise((resolve) => setTimeout(resolve, 250));
      ({ data: status } = await call("GET", `/api/jobs/${status.job}`));
      showProgress(status);
    }
  } finally { progress.hidden = true; running = null; }
  if (status.state === "cancelled") throw new Problem("cancelled: nothing was computed");
  const { data } = await call("GET", `/api/jobs/${status.job}/result`);
  return { job: status.job, document: data };
}

function showProgress(status) {
  if (status.elapsed < 1) return;
  progress.hidden = false;
  const fill = progress.querySelector(".fill");
  const said = progress.querySelector(".said");
  const waiting = status.state === "waiting" ? "waiting for a free worker; " : "";
  const cells = status.progress ? `${status.progress.done} of ${status.progress.planned} cells solved; ` : "";
  if (status.estimate && status.progress) {
    fill.classList.remove("unknown");
    fill.style.width = `${Math.min(95, (100 * status.progress.done) / status.progress.planned)}%`;
    const left = Math.max(0, status.estimate - status.elapsed);
    said.textContent = `${cells}working for ${status.elapsed.toFixed(1)} s; about ${left.toFixed(0)} s left at this rate`;
  } else if (status.work) {
    // the solver's own time left (below) is this question's: no second estimate
    fill.style.width = "100%";
    fill.classList.add("unknown");
    said.textContent = `${cells}working for ${status.elapsed.toFixed(1)} s`;
  } else if (status.estimate) {
    fill.style.width = `${Math.min(95, (100 * status.elapsed) / status.estimate)}%`;
    const left = Math.max(0, status.estimate - status.elapsed);
    said.textContent = `${waiting}working for ${status.elapsed.toFixed(1)} s; about ` +
      `${left.toFixed(0)} s left (estimated from the last questions like it)`;
  } else {
    fill.style.width = "100%";
    fill.classList.add("unknown");
    said.textContent = `${waiting}${cells}working for ${status.elapsed.toFixed(1)} s (no estimate yet: ` +
      (status.kind === "sweep" ? "no cell solved so far)" : "the first question of this kind)");
  }
  // the solver's own words on the step it is at, and the question's time left
  if (status.work) said.textContent += `. Now ${status.work}`;
}

// ---------- drawing

function bars(rows) {
  // rows: [label, probability, class]
  const box = el("div", { class: "bars" });
  for (const [label, p, kind] of rows) {
    const bar = el("div", { class: `bar-row ${kind}` },
      el("span", { class: "label", text: label }),
      el("span", { class: "track" }, el("span", { class: "fill", style: `width:${100 * p}%` })),
      el("span", { class: "number", text: pct(p) }));
    box.append(bar);
  }
  return box;
}

function winBars(doc, me, them) {
  const [win, loss] = me === "a" ? [doc.win, doc.loss] : [doc.loss, doc.win];
  return bars([[`${me.toUpperCase()} wins`, win, "win"], ["draw", doc.draw, "draw"],
    [`${them.toUpperCase()} wins`, loss, "loss"]]);
}

function playList(mix, words) {
  const list = el("ul", { class: "play" });
  const entries = Object.entries(mix).filter(([, p]) => p > 1e-9).sort((x, y) => y[1] - x[1]);
  for (const [action, p] of entries) {
    list.append(el("li", {}, el("strong", { text: short(p) }), ` ${words[action] || action}`,
      el("span", { class: "code", text: ` (${action})` })));
  }
  return list;
}

function table(header, rows, className = "") {
  const head = el("tr", {}, ...header.map((h) => el("th", { text: h })));
  const body = rows.map((row) => el("tr", {}, ...row.map((c) => (c instanceof Node ? el("td", {}, c) : el("td", { text: c })))));
  return el("table", { class: className }, el("thead", {}, head), el("tbody", {}, ...body));
}

function section(title, ...children) {
  return el("section", { class: "card" }, el("h2", { text: title }), ...children);
}
function named(name, node) { node.classList.add(name); return node; }

// a value to A (-1..+1) as a square's colour: green for A, red for B, paler near 0
function heatColour(v) {
  const hue = v >= 0 ? 150 : 0;
  return `background:hsl(${hue} 60% ${95 - 45 * Math.min(1, Math.abs(v))}%)`;
}
// past this many actions on a side, the stage game shows only the actions played
const MANY_ACTIONS = 8;
const played = (p) => p > 1e-9;

function heatMap(moment) {
  const actions = Object.keys(moment.mix_a);
  const matrix = moment.stage_matrix;
  const legal = actions.map((_, k) => k).filter((k) =>
    matrix[k].some((v) => v !== null) || matrix.some((row) => row[k] !== null));
  let rows = legal.filter((i) => matrix[i].some((v) => v !== null));
  let cols = legal.filter((j) => matrix.some((row) => row[j] !== null));
  // many actions: only those either side plays (A's mix is on legal rows, B's on legal
  // columns, so no side is left without an action; all played, nothing is left out)
  let left = 0;
  if (Math.max(rows.length, cols.length) > MANY_ACTIONS) {
    const either = (k) => played(moment.mix_a[actions[k]]) || played(moment.mix_b[actions[k]]);
    left = legal.filter((k) => !either(k)).length;
    rows = rows.filter(either);
    cols = cols.filter(either);
  }
  const shown = legal.filter((k) => rows.includes(k) || cols.includes(k));
  const head = el("tr", {}, el("th", { text: "A \\ B" }),
    ...cols.map((j) => el("th", { title: moment.words[actions[j]] }, actions[j],
      el("div", { class: "mix", text: short(moment.mix_b[actions[j]]) }))));
  const body = rows.map((i) => el("tr", {},
    el("th", { title: moment.words[actions[i]] }, actions[i],
      el("span", { class: "mix", text: ` ${short(moment.mix_a[actions[i]])}` })),
    ...cols.map((j) => {
      const v = matrix[i][j];
      if (v === null) return el("td", { class: "none", text: "–" });
      return el("td", { style: heatColour(v), title: `${moment.words[actions[i]]} / ${moment.words[actions[j]]}` }, v.toFixed(2));
    })));
  const legend = el("p", { class: "hint", text: "Each cell: what the duel is worth to A after that pair of choices (+1 A sure to win, −1 B sure to win). Beside each action: how often the least predictable safe play chooses it." +
    (left ? ` Shown: the ${shown.length} actions either side plays (${left} legal actions that neither plays are left out).` : "") });
  const words = el("ul", { class: "legend" }, ...shown.map((k) => el("li", {}, el("span", { class: "code", text: actions[k] }), ` ${moment.words[actions[k]]}`)));
  return el("div", { class: "heat" }, el("div", { class: "scroll" }, el("table", { class: "heatmap" }, el("thead", {}, head), el("tbody", {}, ...body))), legend, words);
}

// ---------- the Duel page

async function solvePage(request) {
  const { document: doc } = await work("solve", request);
  show(renderSolve(doc, request));
}

function renderSolve(doc, request) {
  const me = request.side || "a";
  const them = me === "a" ? "b" : "a";
  const parts = [];
  if (doc.hidden) return renderHiddenSolve(doc);
  parts.push(section(`Now: ${doc.situation[me]}`, el("pre", { class: "table", text: doc.description })));
  parts.push(named("odds", section("Who wins, both playing the least predictable safe play", winBars(doc, me, them),
    el("p", { text: `A duel lasts ${doc.expected_length.toFixed(1)} ${doc.length_unit}s on average; it is worth ${(me === "a" ? doc.value : -doc.value).toFixed(3)} to ${me.toUpperCase()} (+1 a sure win, −1 a sure loss).` }))));
  const plays = el("div", { class: "two" },
    el("div", {}, el("h3", { text: `${me.toUpperCase()} (you)` }), playList(doc[`mix_${me}`], doc.words)),
    el("div", {}, el("h3", { text: `${them.toUpperCase()} (them)` }), playList(doc[`mix_${them}`], doc.words)));
  parts.push(section("What to play now", plays));
  const endings = Object.entries(doc.endings).sort((x, y) => y[1] - x[1]);
  parts.push(named("endings", section("How duels end", bars(endings.map(([label, p]) => [label, p, "ending"])))));
  parts.push(section("The opening stage game", heatMap(doc)));
  if (doc.next && doc.next.length) {
    const list = el("ul", { class: "next" });
    for (const moment of doc.next.slice(0, 3)) {
      list.append(el("li", {}, el("strong", { text: `In ${pct(moment.chance)} of duels` }), `, ${moment.situation[me]}:`, playList(moment[`mix_${me}`], moment.words)));
    }
    parts.push(section("Then, where both choose at once again", list));
  }
  parts.push(section("What if…", whatIf(doc, request)));
  return parts;
}

function renderHiddenSolve(doc) {
  const rows = doc.types.map((t) => [t.player.toUpperCase(), t.type, pct(t.prior), t.payoff.toFixed(4)]);
  return [section("Who wins (hidden information: each side knows only his own type)", winBars(doc, "a", "b"),
    el("p", { text: `The duel is worth ${doc.value.toFixed(4)} to A.` })),
  section("Each type's payoff", table(["side", "type", "prior", "payoff"], rows))];
}

function whatIf(doc, request) {
  const box = el("form", { class: "whatif" });
  for (const [name, value] of Object.entries(doc.state)) {
    box.append(el("label", { class: "field" }, name.replace(/_/g, " "),
      el("input", { type: "text", name, value: String(value), "data-state": "1" }),
      el("span", { class: "error", "data-for": `state.${name}` })));
  }
  box.append(el("span", { class: "error", "data-for": "state" }));
  const go = el("button", { type: "submit", text: "Ask about this moment" });
  box.append(el("div", { class: "go" }, go));
  box.addEventListener("submit", (event) => {
    event.preventDefault();
    const state = {};
    for (const input of box.querySelectorAll("[data-state]")) state[input.name] = input.value.trim();
    submit(() => solvePage({ ...request, state }));
  });
  return el("div", {}, el("p", { class: "hint", text: "Change the moment of the duel and ask again: the odds and the play from there." }), box);
}

// ---------- the Opponent page

// the situations of a plan the Opponent page lists (the server sends no more of them)
const PLAN_ROWS = 12;

async function oddsPage(request) {
  request.vs = await opponent();
  request.limit = PLAN_ROWS;
  const { document: doc } = await work("odds", request);
  show(renderOdds(doc));
}

function renderOdds(doc) {
  const me = doc.side;
  const them = me === "a" ? "b" : "a";
  const best = doc.best_response;
  const steady = doc.equilibrium_against_it;
  const rows = [["your best play against it", best, "best"], ["the least predictable safe play", steady, "steady"]];
  const parts = [section(`Against ${typeof doc.vs === "string" && doc.vs.includes("/") ? "the profile" : doc.vs}`,
    ...rows.map(([label, r, kind]) => el("div", { class: kind }, el("h3", { text: label }), winBars(r, me, them))),
    el("p", { text: gainSaid(doc) }))];
  if (doc.hidden) return parts;
  const plan = doc.plan.map((row) => [
    row.situation, Object.entries(row.play).sort((x, y) => y[1] - x[1])
      .map(([a, p]) => `${row.words[a]}${Object.keys(row.play).length > 1 ? " " + short(p) : ""}`).join(" / "),
    pct(row.win), pct(row.loss), (100 * row.reach).toPrecision(3)]);
  const heading = doc.equally_good ? "Your best play" : "Where it can be exploited: your best play";
  parts.push(section(`${heading}, situation by situation (${doc.plan.length} most frequent of ${doc.situations})`,
    el("div", { class: "scroll" }, table(["situation", "play", "you win", "you lose", "times in 100 duels"], plan, "plan"))));
  if (doc.mix_fallback) parts.push(el("p", { class: "hint", text: `The mix had no legal action in ${doc.mix_fallback.steps_per_duel.toFixed(3)} steps per duel and played uniformly there.` }));
  return parts;
}

// what the best play gains over the safe one, as the CLI says it (``equally_good``: the
// two are worth the same, to 1e-9)
function gainSaid(doc) {
  const best = doc.best_response;
  const steady = doc.equilibrium_against_it;
  const shown = (p, q) => pct(p) !== pct(q);
  if (!doc.equally_good) {
    const odds = shown(best.win, steady.win)
      ? `you win ${pct(best.win)} instead of ${pct(steady.win)}`
      : `you win ${pct(best.win)} and lose ${pct(best.loss)} instead of ${pct(steady.win)} and ${pct(steady.loss)}`;
    return `Playing your best against it, ${odds} with the safe play (the play no opponent can do better against).`;
  }
  if (shown(best.win, steady.win) || shown(best.loss, steady.loss)) {
    return `Both plays are equally good against it, each worth ${best.value.toFixed(3)} to you, split differently between wins and draws: the best play shown is, of the equally good ones, the least likely to lose. There is nothing more to exploit.`;
  }
  return "Against this opponent the safe play already does as well as any: there is nothing more to exploit.";
}

// ---------- the Play page

async function playPage(request) {
  request.vs = await opponent();
  if (form.seed.value !== "") request.seed = form.seed.value;
  const { data } = await call("POST", "/api/play", request);
  answer.replaceChildren();
  const log = el("ol", { class: "narration" });
  answer.append(section("The duel", el("p", { class: "header", text: `${data.header} Your opponent plays ${data.opponent}.` }), log,
    el("div", { id: "table-now" }), el("div", { id: "choices", class: "choices" })));
  renderTurn(data, log);
  answer.scrollIntoView({ block: "start" });
}

function renderTurn(view, log) {
  for (const line of view.narration) log.append(el("li", { text: line }));
  const now = document.getElementById("table-now");
  const choices = document.getElementById("choices");
  now.replaceChildren(el("pre", { class: "table", text: view.description }));
  choices.replaceChildren();
  if (view.over) {
    now.replaceChildren(el("h3", { class: "result", text: view.result }),
      el("p", { class: "hint", text: "The whole table, hidden parts included:" }),
      el("pre", { class: "table", text: view.revealed }));
    const again = el("button", { type: "button", text: "Play again" });
    again.addEventListener("click", () => form.requestSubmit());
    choices.append(again);
    return;
  }
  choices.append(el("p", { class: "hint", text: "Your choice:" }));
  for (const choice of view.choices) {
    const button = el("button", { type: "button", class: "choice", "data-action": choice.action },
      el("span", { class: "code", text: `${choice.number}` }), ` ${choice.words}`);
    button.addEventListener("click", async () => {
      for (const b of choices.querySelectorAll("button")) b.disabled = true;
      try {
        const { data } = await call("POST", `/api/play/${view.session}`, { action: choice.action });
        renderTurn(data, log);
      } catch (error) { mark(error); }
    });
    choices.append(button);
  }
  const quit = el("button", { type: "button", class: "quiet", text: "Leave the field" });
  quit.addEventListener("click", async () => {
    const { data } = await call("POST", `/api/play/${view.session}`, { action: "quit" });
    renderTurn(data, log);
  });
  choices.append(quit);
}

// ---------- the NPC page

async function npcPage(request) {
  if (form.personality.value) {
    request.personality = form.personality.value;
    request.strength = form.strength.value;
  }
  if (form.seed.value !== "") request.seed = form.seed.value;
  const { job, document: doc } = await work("train", request);
  const file = await (await fetch(`/api/jobs/${job}/profile`)).arrayBuffer();
  const { data: uploaded } = await call("POST", "/api/upload/profile", file, true);
  const { data: words } = await call("POST", "/api/profile/words", { profile: uploaded.profile });
  const download = el("a", { href: `/api/jobs/${job}/profile`, download: "npc.json", class: "button", text: "Download the profile (JSON)" });
  const metrics = Object.entries(doc.metrics).filter(([, v]) => typeof v === "number")
    .map(([k, v]) => [k.replace(/_/g, " "), v.toFixed(4)]);
  show([section("The NPC", el("p", { text: doc.training.reason }), download),
    named("wide", section("Its profile in words", el("pre", { class: "profile", text: words.text }))),
    section("Its numbers", table(["metric", "value"], metrics))]);
}

// ---------- the Dice page

async function dicePage() {
  const request = { expression: form.expression.value.trim() };
  const more = form.more.value.trim();
  const mode = form.mode.value;
  if (mode === "at_least" || mode === "dc") request[mode] = more.split(/[\s,]+/).filter(Boolean);
  if (mode === "vs") request.vs = more;
  let doc;
  try { ({ data: doc } = await call("POST", "/api/dice", request)); } catch (error) {
    if (error.field && error.field !== "expression") error.field = "more";
    throw error;
  }
  show(renderDice(doc));
}

function renderDice(doc) {
  if (doc.outcomes) {
    return [section(`${doc.expression}: mean ${doc.mean.float.toFixed(3)}`, distribution(doc.outcomes, "total"),
      el("div", { class: "scroll" }, table(["total", "P(=)", "P(≥)"], doc.outcomes.map((o) => [o.total, pct(o.probability.float), pct(o.at_least.float)]))))];
  }
  if (doc.at_least) {
    return [section(doc.expression, bars(doc.at_least.map((t) => [`at least ${t.threshold}`, t.probability.float, "win"])))];
  }
  if (doc.margin) {
    return [section(`A = ${doc.a} against B = ${doc.b}`, bars([["A > B", doc.a_wins.float, "win"], ["A = B", doc.tie.float, "draw"], ["A < B", doc.b_wins.float, "loss"]])),
      section("A − B", distribution(doc.margin, "margin"))];
  }
  const names = ["critical_success", "success", "failure", "critical_failure"];
  return [section(`${doc.expression} against DCs`, table(["DC", ...names.map((n) => n.replace("_", " ")), "success or better"],
    doc.checks.map((c) => [c.dc, ...names.map((n) => pct(c[n].float)), pct(c.success_or_better.float)])))];
}

function distribution(outcomes, key) {
  const width = 640, height = 220, pad = 28;
  const top = Math.max(...outcomes.map((o) => o.probability.float));
  const step = (width - 2 * pad) / outcomes.length;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img", "aria-label": "distribution" });
  const every = Math.ceil(outcomes.length / 20);
  outcomes.forEach((o, k) => {
    const h = ((height - 2 * pad) * o.probability.float) / top;
    const bar = svg("rect", { x: pad + k * step + 1, y: height - pad - h, width: Math.max(1, step - 2), height: h, class: "column" });
    const title = svg("title");
    title.textContent = `${o[key]}: ${pct(o.probability.float)}`;
    bar.append(title);
    chart.append(bar);
    if (k % every === 0) {
      const label = svg("text", { x: pad + k * step + step / 2, y: height - pad + 16, "text-anchor": "middle" });
      label.textContent = o[key];
      chart.append(label);
    }
  });
  const peak = svg("text", { x: pad, y: pad - 10 });
  peak.textContent = `highest: ${pct(top)}`;
  chart.append(peak);
  return chart;
}

// ---------- the Ruleset page

async function rulesetPage() {
  const file = form.ruleset.files[0];
  if (!file) throw new Problem("choose a TOML file", "ruleset");
  let data;
  try {
    ({ data } = await call("POST", `/api/upload/ruleset?system=${encodeURIComponent(form.system.value)}`, await file.arrayBuffer(), true));
  } catch (error) { throw new Problem(error.message, "ruleset"); }
  localStorage.setItem(RULES_KEY, JSON.stringify(data));
  showRules();
  const rows = data.differences.map((d) => [d.key, JSON.stringify(d.default), JSON.stringify(d.value)]);
  show([section(`These rules are used for ${data.system} on every page`,
    el("p", { text: `Hash ${data.hash}; the defaults' is ${data.default_hash}.` }),
    rows.length ? table(["rule", "default", "yours"], rows) : el("p", { text: "They are the same as the defaults." }))]);
}

// ---------- the Sweep page: a grid of duels, and its report

function sweepRequest() {
  const request = gameRequest();
  for (const side of ["a", "b"]) request[side] = form.elements.namedItem(side).value.trim();
  request.grid = form.elements.namedItem("grid").value.split("\n").map((line) => line.trim()).filter(Boolean);
  return request;
}

async function sweepPage() {
  const { job, document: doc } = await work("sweep", sweepRequest());
  const s = doc.summary;
  const said = el("p", { class: "summary" },
    `${s.cells} cells: ${s.solved} solved now, ${s.reused} done before, ${s.from_mirror} read from their mirror (${s.seconds.toFixed(1)} s). `,
    el("a", { href: `/api/jobs/${job}/results`, download: doc.report.header.source, class: "button", text: "Download the results (Parquet)" }));
  show(renderReport(doc.report, said));
}

async function readResults(event) {
  event.preventDefault();
  clearProblems();
  const file = reader.results.files[0];
  try {
    if (!file) throw new Problem("choose a results file (cells.parquet) to upload", "results");
    let data;
    try {
      ({ data } = await call("POST", `/api/upload/results?name=${encodeURIComponent(file.name)}`, await file.arrayBuffer(), true));
    } catch (error) { throw new Problem(error.message, "results"); }
    show(renderReport(data.report));
  } catch (error) { mark(error); }
}

const signed = (v, digits = 3) => `${v >= 0 ? "+" : ""}${v.toFixed(digits)}`;
const pct1 = (p) => `${(100 * p).toFixed(1)}%`;
// percentage points, signed, never "−0.0"
const points = (g) => (Math.abs(g) >= 0.05 ? signed(g, 1) : "+0.0");
const sheetName = (text) => text || "(default)";

function renderReport(report, ...more) {
  const parts = [reportHeader(report.header, more)];
  if (report.heat_map) parts.push(named("sweep-heat", section(`Value over ${report.heat_map.row_axis} and ${report.heat_map.column_axis}`, sweepHeat(report.heat_map))));
  parts.push(named("worth", section("What each field is worth",
    el("p", { class: "hint", text: "A's chance of winning gained by one step of each axis, at every level of the others (percentage points per point for a numeric field; against the first value for the others)." }),
    ...report.worth.map(worthOfAxis))));
  parts.push(named("dominated", section("Dominated sheets", ...dominated(report.dominated))));
  parts.push(named("negligible", section("Options and flags of negligible worth", negligible(report.negligible))));
  parts.push(named("balance", section("The most and least balanced pairings", ...balance(report.balance))));
  return parts;
}

function reportHeader(h, more) {
  const base = Object.entries(h.base_sheets).filter(([, text]) => text)
    .map(([side, text]) => `${side.toUpperCase()} ${text}`).join("; ") || "the default sheets";
  const options = Object.entries(h.base_options).map(([k, v]) => `${k}=${v}`).join(", ") || "none";
  const axes = el("ul", {}, ...h.axes.map((a) => el("li", {}, el("span", { class: "code", text: a.label }), `: ${a.values.join(", ")}`)));
  const parts = [el("p", { text: `${h.cells} duels from ${h.source}, each solved exactly (base: ${base}; options: ${options}; rules: ${h.base_ruleset ? "a ruleset file" : "the defaults"}). The grid:` }), axes,
    el("p", { class: "hint", text: "Value is A's worth of the duel (+1 a sure win, −1 a sure loss); win is A's chance of winning, both sides playing the least predictable safe play." })];
  if (h.unrefined) parts.push(el("p", { class: "hint", text: `In ${h.unrefined} duels some mixes are optimal but not confirmed the least predictable: their values are exact, their odds those of the optimal mixes found.` }));
  return named("sweep-header", section(`Balance sweep: ${h.system}`, ...more, ...parts));
}

function sweepHeat(heat) {
  const head = el("tr", {}, el("th", { text: `${heat.row_axis} \\ ${heat.column_axis}` }), ...heat.columns.map((c) => el("th", { text: c })));
  const body = heat.rows.map((r, i) => el("tr", {}, el("th", { text: r }), ...heat.values[i].map((v, j) => (v === null
    ? el("td", { class: "none", text: "–" })
    : el("td", { style: heatColour(v), title: `${heat.row_axis}=${r}, ${heat.column_axis}=${heat.columns[j]}` }, signed(v, 2))))));
  const square = (s) => `${heat.row_axis}=${s.row}, ${heat.column_axis}=${s.column} (${signed(s.value)}${s.ties ? `, tied with ${s.ties} other square${s.ties > 1 ? "s" : ""}` : ""})`;
  const said = (heat.averaged_over ? `Each square is the mean over the other axes' ${heat.averaged_over} combinations. ` : "") +
    `The best for A is ${square(heat.best)}; the worst ${square(heat.worst)}.`;
  return el("div", { class: "heat" }, el("div", { class: "scroll" }, el("table", { class: "heatmap" }, el("thead", {}, head), el("tbody", {}, ...body))),
    el("p", { class: "hint", text: "Each square: the value of the duel to A (+1 A sure to win, −1 B sure to win)." }), el("p", { text: said }));
}

function worthOfAxis(axis) {
  const parts = [el("h3", { text: axis.axis })];
  if (!axis.steps.length) return el("div", {}, ...parts, el("p", { text: "One level only: nothing to compare." }));
  if (axis.low !== null) {
    parts.push(el("p", { text: `Over ${axis.combinations} combinations of the others, one step of ${axis.axis} changes A's chance of winning by ${points(axis.low)} to ${points(axis.high)} points (mean ${points(axis.mean)}).` }));
  }
  const rows = axis.rows.map((row) => [row.others, ...row.points.map((g) => (g === null ? "-" : points(g)))]);
  parts.push(el("div", { class: "scroll" }, table(["others", ...axis.steps], rows, "worth")));
  if (axis.more) parts.push(el("p", { class: "hint", text: `(${axis.more} more combinations in the results file.)` }));
  return el("div", { class: "axis" }, ...parts);
}

function dominated(d) {
  const parts = [el("p", { class: "hint", text: `The schema of ${d.system} gives sheets no cost, so no sheet is dominated at the same cost; below instead are A's sheets that are never better than another of A's sheets against every opponent and option they were both tried with (a designer weighs what each costs).` })];
  if (!d.pairs.length) return [...parts, el("p", { text: "No sheet of A is dominated in this grid." })];
  parts.push(el("div", { class: "scroll" }, table(["sheet", "never better than", "opponents", "gap min", "gap max"],
    d.pairs.map((p) => [sheetName(p.sheet), sheetName(p.better), String(p.opponents), signed(p.gap_min), signed(p.gap_max)]), "dominated")));
  if (d.more) parts.push(el("p", { class: "hint", text: `(${d.more} more dominated pairs.)` }));
  return parts;
}

function negligible(n) {
  if (!n.axes.length) return el("p", { text: "No flag, option or sheet axis to weigh in this grid." });
  return table(["axis", "moves A's chance of winning by at most", "on average", `negligible (under ${n.line_points} points)`],
    n.axes.map((a) => [a.axis, `${a.most_points.toFixed(2)} points`, `${a.mean_points.toFixed(2)} points`, a.negligible ? "negligible" : "not negligible"]), "negligible");
}

function balance(b) {
  if (!b.most.length) return [el("p", { text: "Every duel of this grid pits a sheet against itself." })];
  const lead = "Pairings of different sheets by how far the value is from 0" +
    (b.same_sheet ? ` (${b.same_sheet} duels of a sheet against itself left out: they are even by symmetry).` : ".");
  const pairings = (rows) => table(["A", "B", "options", "value", "A wins", "draw", "B wins"],
    rows.map((r) => [sheetName(r.a), sheetName(r.b), r.options, signed(r.value), pct1(r.win), pct1(r.draw), pct1(r.loss)]), "pairings");
  return [el("p", { text: lead }), el("h3", { text: "Most balanced" }), el("div", { class: "scroll most" }, pairings(b.most)),
    el("h3", { text: "Least balanced" }), el("div", { class: "scroll least" }, pairings(b.least))];
}

// ---------- wiring

function show(parts) {
  answer.replaceChildren(...parts);
  answer.scrollIntoView({ block: "start" });
}

async function submit(run) {
  clearProblems();
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try { await run(); } catch (error) {
    if (error instanceof Problem) mark(error); else mark(new Problem(String(error)));
  } finally { button.disabled = false; }
}

const RUNS = {
  duel: () => solvePage(gameRequest()), opponent: () => oddsPage(gameRequest()),
  play: () => playPage(gameRequest()), npc: () => npcPage(gameRequest()),
  dice: dicePage, ruleset: rulesetPage, sweep: sweepPage,
};
const reader = document.getElementById("read");
if (reader) reader.addEventListener("submit", readResults);

showRules();
if (form) {
  form.addEventListener("submit", (event) => { event.preventDefault(); submit(RUNS[page]); });
  for (const input of form.querySelectorAll("[data-kind]")) input.dataset.kept = kept(input);
  const chosen = rules();
  if (chosen && chosen.system === system && chosen.shown) {
    keptUnder(chosen.shown);
    showKept(form);
  }
  for (const picker of form.querySelectorAll("fieldset.sheet select[name$='.sheet']")) {
    picker.addEventListener("change", () => showKept(picker.closest("fieldset.sheet")));
  }
  const picker = document.getElementById("system");
  if (picker) picker.addEventListener("change", () => { location.search = `?system=${picker.value}`; });
  for (const range of form.querySelectorAll("input[type=range]")) {
    const shown = form.querySelector(`output[data-of="${range.name}"]`);
    range.addEventListener("input", () => { shown.textContent = range.value; });
  }
  for (const radio of form.querySelectorAll("[name=vs_kind]")) {
    radio.addEventListener("change", () => {
      for (const part of form.querySelectorAll(".vs-part")) part.hidden = part.dataset.vs !== radio.value;
    });
  }
  const defaults = document.getElementById("defaults");
  if (defaults) defaults.addEventListener("click", () => { localStorage.removeItem(RULES_KEY); showRules(); answer.replaceChildren(); });
}
