// trilab explore: the Trike board, the value of every move and the side panels.
// Plain JS and SVG; everything comes from this server's /api (see server.py).
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const clientId = "p" + Math.random().toString(36).slice(2, 12);

const S = {
  info: null,
  size: 5,
  start: "",          // the start position ("" = the empty board)
  moves: [],          // every move entered (row.col or swap); redo keeps the tail
  at: 0,              // moves applied
  plies: [],          // /api/game answer for moves[0..at]
  values: new Map(),  // "size|pos" -> analysis
  opponent: "none",
  computerSeat: 1,
  generation: 0,      // bumps on every change of the game: late answers are ignored
  controllers: {},
  map: null,
  mapStudy: 0,
};

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function showMessage(text) {
  const m = $("message");
  m.textContent = text || "";
  m.hidden = !text;
}

// One request per kind at a time: a new one aborts the old (the server also
// cancels the page's older search of that kind).  Resolves to null when aborted.
async function api(kind, path, params) {
  if (S.controllers[kind]) S.controllers[kind].abort();
  const ctl = new AbortController();
  S.controllers[kind] = ctl;
  const q = new URLSearchParams(params);
  try {
    const r = await fetch(`/api/${path}?${q}`, { signal: ctl.signal });
    const body = await r.json();
    if (!r.ok) return { error: body.error || `HTTP ${r.status}`, status: r.status };
    return body;
  } catch (e) {
    if (e.name === "AbortError") return null;
    return { error: String(e) };
  } finally {
    if (S.controllers[kind] === ctl) delete S.controllers[kind];
  }
}

const key = (size, pos) => `${size}|${pos}`;
const current = () => S.plies[S.plies.length - 1];
const moveLabel = (m) => (m === "swap" ? "swap" : `(${m.replace(".", ",")})`);

// ------------------------------------------------------------------ game

async function loadGame() {
  const gen = ++S.generation;
  const params = { size: S.size };
  if (S.start) params.start = S.start;
  if (S.at > 0) params.moves = S.moves.slice(0, S.at).join(",");
  const g = await api("game", "game", params);
  if (g === null || gen !== S.generation) return false;
  if (g.error) {
    showMessage(g.error);
    return false;
  }
  showMessage("");
  S.plies = g.plies;
  writeUrl();
  render();
  analyzeCurrent(gen);
  maybeComputerMove(gen);
  return true;
}

function play(move) {
  S.moves = S.moves.slice(0, S.at);
  S.moves.push(move);
  S.at += 1;
  return loadGame();
}

function newGame(size, start, moves) {
  S.size = size;
  S.start = start || "";
  S.moves = moves || [];
  S.at = S.moves.length;
  $("size").value = String(size);
  loadOpenings();
  return loadGame();
}

function writeUrl() {
  const q = new URLSearchParams();
  q.set("size", S.size);
  const pos = current() ? current().pos : "";
  if (pos) q.set("pos", pos);
  if (S.start) q.set("start", S.start);
  if (S.moves.length) q.set("moves", S.moves.join(","));
  if (S.at !== S.moves.length) q.set("at", S.at);
  if (S.opponent !== "none") {
    q.set("vs", S.opponent);
    q.set("seat", S.computerSeat);
  }
  history.replaceState(null, "", `${location.pathname}?${q}`);
  $("pos-input").value = pos;
}

function readUrl() {
  const q = new URLSearchParams(location.search);
  const size = parseInt(q.get("size") || "5", 10);
  const moves = q.get("moves") ? q.get("moves").split(",") : [];
  let start = q.get("start") || "";
  if (!moves.length && q.get("pos")) start = q.get("pos");  // a pasted position
  S.opponent = ["agent", "solver"].includes(q.get("vs")) ? q.get("vs") : "none";
  S.computerSeat = q.get("seat") === "0" ? 0 : 1;
  $("opponent").value = S.opponent;
  $("computer-seat").value = String(S.computerSeat);
  const at = q.has("at") ? parseInt(q.get("at"), 10) : moves.length;
  return { size: Number.isFinite(size) ? size : 5, start, moves,
           at: Number.isFinite(at) ? Math.max(0, Math.min(at, moves.length)) : moves.length };
}

// ------------------------------------------------------------------ board

function geometry(size) {
  const W = 600, H = 540, padX = 60, padTop = 34, padBottom = 56;
  const span = Math.max(size - 1, 1);
  const d = Math.min((W - 2 * padX) / span, (H - padTop - padBottom) / (span * 0.866));
  const top = padTop + (H - padTop - padBottom - (size - 1) * d * 0.866) / 2;
  const xy = (r, c) => [W / 2 + (c - r / 2) * d, top + r * d * 0.866];
  return { d, xy, radius: Math.min(d * 0.36, 26) };
}

function cellsOf(pos, size) {
  // {"r.c": "b"|"w"} and the pawn from the notation
  const cells = {};
  let pawn = null;
  if (!pos) return { cells, pawn };
  pos.split("/").forEach((row, r) => {
    [...row].forEach((ch, c) => {
      if (ch === ".") return;
      cells[`${r}.${c}`] = ch.toLowerCase();
      if (ch === "B" || ch === "W") pawn = `${r}.${c}`;
    });
  });
  return { cells, pawn };
}

function render() {
  const ply = current();
  if (!ply) return;
  const size = S.size;
  const svg = $("board");
  svg.replaceChildren();
  const { d, xy, radius } = geometry(size);
  const defs = el("defs", {}, svg);
  hatch(defs, "hatch-win", "#cfe9cf", "#3f8f46");
  hatch(defs, "hatch-lose", "#f6d5d0", "#b5463a");
  hatch(defs, "hatch-even", "#e6e9ee", "#8796a8");
  const grid = el("g", { class: "grid" }, svg);
  for (let r = 0; r < size; r++) {
    for (let c = 0; c <= r; c++) {
      const [x, y] = xy(r, c);
      for (const [dr, dc] of [[0, 1], [1, 0], [1, 1]]) {
        const rr = r + dr, cc = c + dc;
        if (cc <= rr && rr < size) {
          const [x2, y2] = xy(rr, cc);
          el("line", { x1: x, y1: y, x2, y2 }, grid);
        }
      }
    }
  }
  // coordinates: rows on the left, columns under the last row
  for (let r = 0; r < size; r++) {
    const [x, y] = xy(r, 0);
    el("text", { x: x - Math.max(d * 0.55, 18), y, class: "coord" }, svg).textContent = r;
  }
  for (let c = 0; c < size; c++) {
    const [x, y] = xy(size - 1, c);
    el("text", { x, y: y + Math.min(Math.max(d * 0.5, 18), 34), class: "coord" }, svg).textContent = c;
  }
  const { cells, pawn } = cellsOf(ply.pos, size);
  const legal = new Set(ply.legal.map(([r, c]) => `${r}.${c}`));
  const analysis = S.values.get(key(size, ply.pos));
  const byMove = new Map();
  if (analysis && !analysis.error) for (const m of analysis.moves) byMove.set(m.move, m);
  for (let r = 0; r < size; r++) {
    for (let c = 0; c <= r; c++) {
      const id = `${r}.${c}`;
      const [x, y] = xy(r, c);
      const g = el("g", { "data-point": id }, svg);
      el("title", {}, g).textContent = `(${r},${c})`;
      if (cells[id]) {
        el("circle", { cx: x, cy: y, r: radius, class: `checker ${cells[id]}` }, g);
        if (id === pawn) {
          el("circle", { cx: x, cy: y, r: radius + 5, class: "pawn" }, g);
          el("circle", { cx: x, cy: y, r: radius * 0.28, class: "pawn-dot" }, g);
        }
      } else if (legal.has(id) && !ply.over) {
        drawMove(g, id, x, y, radius, byMove.get(id));
      } else {
        el("circle", { cx: x, cy: y, r: Math.max(2.5, radius * 0.18), class: "pt" }, g);
      }
    }
  }
  renderStatus(ply, analysis);
  renderControls(ply, analysis);
  renderMoves(analysis);
  renderHistory();
}

function hatch(defs, id, bg, fg) {
  const p = el("pattern", { id, width: 7, height: 7, patternUnits: "userSpaceOnUse",
                            patternTransform: "rotate(45)" }, defs);
  el("rect", { width: 7, height: 7, fill: bg }, p);
  el("line", { x1: 0, y1: 0, x2: 0, y2: 7, stroke: fg, "stroke-width": 3.5 }, p);
}

function valueText(m) {
  if (!m) return "…";
  if (m.kind === "exact") {
    const word = m.result === "win" ? "win" : "loss";
    const rem = m.remoteness == null ? "" : ` in ${m.remoteness}`;
    const more = m.margin_at_least ? " or more" : "";
    return `${word} ${m.margin > 0 ? "+" : "−"}${Math.abs(m.margin)}${more}${rem}`;
  }
  const pct = Math.round(m.win_rate * 100);
  return `${pct}% · ${m.visits.toLocaleString("en")} visits${m.proven ? ", proven" : ""}`;
}

function drawMove(g, id, x, y, radius, m) {
  const rr = radius * 0.82;
  let cls = "mv pending", fill = null, label = "";
  if (m && m.kind === "exact") {
    cls = `mv exact ${m.result}`;
    label = m.remoteness == null ? (m.margin > 0 ? "+" : "−") + Math.abs(m.margin) : m.remoteness;
  } else if (m) {
    cls = "mv estimate";
    fill = m.win_rate > 0.55 ? "url(#hatch-win)" : m.win_rate < 0.45 ? "url(#hatch-lose)" : "url(#hatch-even)";
    label = Math.round(m.win_rate * 100);
  }
  const attrs = { cx: x, cy: y, r: rr, class: cls, "data-move": id };
  if (m) {
    attrs["data-kind"] = m.kind;
    if (m.kind === "exact") attrs["data-result"] = m.result;
    else attrs["data-win-rate"] = m.win_rate;
  }
  if (fill) attrs.fill = fill;
  const circ = el("circle", attrs, g);
  g.querySelector("title").textContent = `(${id.replace(".", ",")}): ${valueText(m)}`;
  if (label !== "" && rr > 9) {
    el("text", { x, y, class: m.kind === "exact" ? "mvlabel" : "mvlabel est" }, g).textContent = label;
  }
  circ.addEventListener("click", () => userMove(id));
}

function seatName(seat) {
  return seat === 0 ? "seat 0 (placer)" : "seat 1 (mover)";
}

function renderStatus(ply, analysis) {
  let text;
  if (ply.over) {
    const who = ply.winner_seat === S.computerSeat && S.opponent !== "none" ? " (the computer)" : "";
    text = `Game over: b ${ply.score.b}, w ${ply.score.w} around the pawn — ${ply.winner} wins, ${seatName(ply.winner_seat)}${who}.`;
  } else if (!ply.pos) {
    text = `Size ${S.size}: ${seatName(0)} places the first checker (b). Click a point.`;
  } else {
    text = `${ply.to_move} to move — ${seatName(ply.seat_to_move)}; b is ${seatName(ply.b_seat)}.`;
    const v = analysis && analysis.value;
    if (v && v.kind === "exact") {
      text += ` Exact: ${ply.to_move} ${v.result === "win" ? "wins" : "loses"} by ${Math.abs(v.margin)}` +
        (v.margin_at_least ? " or more" : "") + (v.remoteness != null ? `, ${v.remoteness} moves to the end.` : ".");
    } else if (v) {
      text += ` Estimate: ${ply.to_move} wins ${Math.round(v.win_rate * 100)}%.`;
    }
  }
  $("status").textContent = text;
}

function renderControls(ply, analysis) {
  $("undo").disabled = S.at === 0;
  $("redo").disabled = S.at >= S.moves.length;
  const swap = $("swap");
  swap.disabled = !ply.swap_allowed;
  const badge = $("swap-value");
  const sv = analysis && analysis.swap;
  if (ply.swap_allowed && sv) {
    badge.textContent = valueText(sv);
    badge.className = "badge " + (sv.kind === "exact" ? sv.result : "est");
    swap.dataset.kind = sv.kind;
    if (sv.kind === "exact") swap.dataset.result = sv.result;
  } else {
    badge.textContent = "";
    badge.className = "badge";
    delete swap.dataset.kind;
    delete swap.dataset.result;
  }
}

function renderMoves(analysis) {
  const body = $("moves").querySelector("tbody");
  body.replaceChildren();
  const src = $("analysis-source");
  const note = $("analysis-note");
  if (!analysis) {
    src.textContent = current() && current().over ? "" : "searching…";
    note.textContent = "";
    return;
  }
  if (analysis.error) {
    src.textContent = "";
    note.textContent = `search failed: ${analysis.error}`;
    return;
  }
  src.textContent = `${analysis.sources.join(" + ")}${analysis.cached ? ", cached" : ""}`;
  let text = analysis.note || "";
  if (analysis.opening) text = (text ? text + ". " : "") + "Opening values for the placer, without the swap.";
  note.textContent = text;
  const rows = [...analysis.moves];
  if (analysis.swap && current().swap_allowed) rows.unshift(analysis.swap);
  for (const m of rows) {
    const tr = document.createElement("tr");
    tr.dataset.move = m.move;
    const cls = m.kind === "exact" ? m.result : "est";
    tr.innerHTML = `<td>${moveLabel(m.move)}</td><td class="${cls}">${valueText(m)}</td><td>${m.kind === "estimate" ? "estimate" : ""}</td>`;
    tr.addEventListener("click", () => userMove(m.move));
    tr.addEventListener("mouseenter", () => highlight(m.move, true));
    tr.addEventListener("mouseleave", () => highlight(m.move, false));
    body.appendChild(tr);
  }
}

function highlight(move, on) {
  const c = document.querySelector(`#board circle[data-move="${move}"]`);
  if (c) c.classList.toggle("hl", on);
}

// ------------------------------------------------------------------ analysis

async function analyzeCurrent(gen) {
  const ply = current();
  if (!ply || ply.over) {
    renderLine([]);
    return;
  }
  const k = key(S.size, ply.pos);
  if (!S.values.has(k)) {
    const params = { size: S.size, client: clientId };
    if (ply.pos) params.pos = ply.pos;
    const res = await api("analyze", "analyze", params);
    if (res === null) return;
    if (res.error && res.status === 409) return;
    if (!res.error) S.values.set(k, res);  // an error is retried on the next visit
    if (gen !== S.generation) return;
    if (res.error) {
      renderMoves({ error: res.error });
      return;
    }
    render();
  }
  if (gen !== S.generation) return;
  loadLine(gen, ply);
  fillHistory(gen);
}

async function loadLine(gen, ply) {
  const params = { size: S.size, client: clientId, plies: 10 };
  if (ply.pos) params.pos = ply.pos;
  $("line").replaceChildren();
  const res = await api("line", "line", params);
  if (res === null || gen !== S.generation) return;
  if (res.error) {
    if (res.status !== 409) $("line").textContent = `no line: ${res.error}`;
    return;
  }
  renderLine(res.line);
}

function renderLine(line) {
  const ol = $("line");
  ol.replaceChildren();
  line.forEach((m, i) => {
    const li = document.createElement("li");
    const cls = m.kind === "exact" ? m.result : "est";
    li.innerHTML = `${m.to_move} ${moveLabel(m.move)} <span class="${cls}">${valueText(m)}</span>`;
    li.title = "play the line up to here";
    li.addEventListener("click", async () => {
      const tail = line.slice(0, i + 1).map((x) => x.move);
      S.moves = S.moves.slice(0, S.at).concat(tail);
      S.at = S.moves.length;
      await loadGame();
    });
    ol.appendChild(li);
  });
}

// values of the earlier plies for the chart (after a reload), one at a time
async function fillHistory(gen) {
  for (const ply of S.plies) {
    if (gen !== S.generation) return;
    if (!ply.pos || ply.over || S.values.has(key(S.size, ply.pos))) continue;
    const res = await api("history", "analyze", { size: S.size, pos: ply.pos, client: clientId + "h" });
    if (res === null || res.error) return;
    S.values.set(key(S.size, ply.pos), res);
    renderHistory();
  }
}

function bChance(ply) {
  // b's chance to win at this ply: 1/0 exact, the agent's rate otherwise
  if (ply.over) return { y: ply.winner === "b" ? 1 : 0, exact: true, text: `${ply.winner} won` };
  const a = S.values.get(key(S.size, ply.pos));
  if (!a || !a.value) return null;
  const v = a.value;
  if (v.kind === "exact") {
    const y = v.winner === "b" ? 1 : 0;
    return { y, exact: true, text: `${v.winner} wins by ${Math.abs(v.margin)}${v.margin_at_least ? "+" : ""}` };
  }
  const y = ply.to_move === "b" ? v.win_rate : 1 - v.win_rate;
  return { y, exact: false, text: `estimate: b ${Math.round(y * 100)}%` };
}

function renderHistory() {
  const svg = $("history");
  svg.replaceChildren();
  const W = 320, H = 150, L = 34, R = 10, T = 10, B = 22;
  const n = Math.max(S.plies.length - 1, 1);
  const X = (i) => L + (i / n) * (W - L - R);
  const Y = (y) => T + (1 - y) * (H - T - B);
  el("line", { x1: L, y1: Y(0), x2: W - R, y2: Y(0), class: "axis" }, svg);
  el("line", { x1: L, y1: Y(1), x2: W - R, y2: Y(1), class: "axis" }, svg);
  el("line", { x1: L, y1: Y(0.5), x2: W - R, y2: Y(0.5), class: "mid" }, svg);
  el("text", { x: 2, y: Y(1) + 3 }, svg).textContent = "b wins";
  el("text", { x: 2, y: Y(0) + 3 }, svg).textContent = "w wins";
  el("text", { x: W - R, y: H - 6, "text-anchor": "end" }, svg).textContent = `move ${S.plies.length - 1}`;
  el("line", { x1: X(S.plies.length - 1), y1: T, x2: X(S.plies.length - 1), y2: Y(0), class: "current" }, svg);
  const pts = [];
  S.plies.forEach((ply, i) => {
    if (!ply.pos) return;
    const v = bChance(ply);
    if (v) pts.push([i, v]);
  });
  if (pts.length > 1) {
    el("polyline", { points: pts.map(([i, v]) => `${X(i)},${Y(v.y)}`).join(" "), class: "path" }, svg);
  }
  for (const [i, v] of pts) {
    const c = el("circle", { cx: X(i), cy: Y(v.y), r: 3.5, class: v.exact ? "exact" : "estimate" }, svg);
    el("title", {}, c).textContent = `move ${i} ${S.plies[i].move}: ${v.text}`;
  }
}

// ------------------------------------------------------------------ play against

async function userMove(move) {
  const ply = current();
  if (!ply || ply.over) return;
  if (S.opponent !== "none" && ply.seat_to_move === S.computerSeat) {
    $("play-note").textContent = "wait: it is the computer's move";
    return;
  }
  await play(move);
}

async function maybeComputerMove(gen) {
  const ply = current();
  if (S.opponent === "none" || !ply || ply.over || ply.seat_to_move !== S.computerSeat) return;
  if (S.at < S.moves.length) return;  // looking back with undo: no answer
  $("play-note").textContent = `the ${S.opponent} is thinking…`;
  const params = { size: S.size, opponent: S.opponent, client: clientId };
  if (S.start) params.start = S.start;
  if (S.at > 0) params.moves = S.moves.slice(0, S.at).join(",");
  const res = await api("move", "move", params);
  if (res === null || gen !== S.generation) return;
  if (res.error) {
    $("play-note").textContent = `no move: ${res.error}`;
    return;
  }
  $("play-note").textContent = `${S.opponent}: ${moveLabel(res.move)} — ${res.note}`;
  await play(res.move);
}

// ------------------------------------------------------------------ swap map

async function loadOpenings() {
  const size = S.size;
  const res = await api("openings", "openings", { size });
  if (res === null || size !== S.size) return;
  S.map = res.error ? null : res;
  const sel = $("map-study");
  sel.replaceChildren();
  if (S.map) {
    S.map.studies.forEach((s, i) => {
      const o = document.createElement("option");
      o.value = i;
      o.textContent = s.label;
      sel.appendChild(o);
    });
  }
  S.mapStudy = 0;
  renderMap();
}

function renderMap() {
  const svg = $("swapmap");
  svg.replaceChildren();
  const summary = $("map-summary");
  const study = S.map && S.map.studies[S.mapStudy];
  if (!study) {
    summary.textContent = `no balance study of size ${S.size} in results/balance/`;
    return;
  }
  const size = S.size, W = 300, H = 200, pad = 18;
  const d = Math.min((W - 2 * pad) / Math.max(size - 1, 1), (H - 2 * pad) / (Math.max(size - 1, 1) * 0.866));
  const top = (H - (size - 1) * d * 0.866) / 2;
  const r0 = Math.max(3, Math.min(d * 0.4, 14));
  for (const o of study.openings) {
    const x = W / 2 + (o.col - o.row / 2) * d, y = top + o.row * d * 0.866;
    let fill;
    if (study.method === "exact") fill = o.winner === "placer" ? "#e39b2d" : "#3f7fbf";
    else {
      const p = o.placer_win_rate;
      fill = `hsl(${Math.round(210 - 180 * p)}, 65%, ${Math.round(70 - 25 * Math.abs(p - 0.5) * 2)}%)`;
    }
    const c = el("circle", { cx: x, cy: y, r: r0, fill, class: "op", "data-opening": `${o.row}.${o.col}` }, svg);
    const desc = study.method === "exact"
      ? `${o.winner} wins${o.margin != null ? ` by ${Math.abs(o.margin)}` : ""}${o.swap ? ": swap" : ": no swap"}`
      : `placer wins ${Math.round(o.placer_win_rate * 100)}% of ${o.games} games${o.swap ? ": swap" : ""}` +
        (o.exact_winner ? ` (exact: ${o.exact_winner})` : "");
    el("title", {}, c).textContent = `opening (${o.row},${o.col}): ${desc}`;
    c.addEventListener("click", () => newGame(S.size, "", [`${o.row}.${o.col}`]));
  }
  const s = study.summary || {};
  const parts = [];
  if (s.placer_wins != null) parts.push(`the placer wins ${s.placer_wins} of ${s.openings_total} openings (swapped under the pie rule)`);
  if (s.pie_value != null) parts.push(`pie value ${Math.round(s.pie_value * 100)}%`);
  parts.push(study.method === "exact" ? "orange: placer wins (swap), blue: mover wins" :
             "colour: placer win rate (orange high, blue low)");
  summary.textContent = `${study.label}: ${parts.join("; ")}. Click an opening to open it.`;
}

// ------------------------------------------------------------------ wiring

function wire() {
  const sizeSel = $("size");
  for (let n = S.info.min_size; n <= S.info.max_size; n++) {
    const o = document.createElement("option");
    o.value = n;
    o.textContent = n <= S.info.exact_max_size ? `${n}` : `${n} (estimates)`;
    sizeSel.appendChild(o);
  }
  sizeSel.addEventListener("change", () => newGame(parseInt(sizeSel.value, 10), "", []));
  $("new-game").addEventListener("click", () => newGame(S.size, "", []));
  $("undo").addEventListener("click", () => { if (S.at > 0) { S.at -= 1; loadGame(); } });
  $("redo").addEventListener("click", () => { if (S.at < S.moves.length) { S.at += 1; loadGame(); } });
  $("swap").addEventListener("click", () => userMove("swap"));
  $("pos-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("pos-input").value.trim();
    const rows = text ? text.split("/").length : S.size;
    newGame(rows, text, []);
  });
  $("copy-link").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(location.href); } catch (e) { /* not allowed: the URL bar has it */ }
  });
  $("opponent").addEventListener("change", () => {
    S.opponent = $("opponent").value;
    $("play-note").textContent = "";
    writeUrl();
    maybeComputerMove(S.generation);
  });
  $("computer-seat").addEventListener("change", () => {
    S.computerSeat = parseInt($("computer-seat").value, 10);
    writeUrl();
    maybeComputerMove(S.generation);
  });
  $("map-study").addEventListener("change", () => { S.mapStudy = parseInt($("map-study").value, 10); renderMap(); });
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT") return;
    if (ev.key === "ArrowLeft") $("undo").click();
    if (ev.key === "ArrowRight") $("redo").click();
  });
}

async function main() {
  const info = await api("info", "info", {});
  if (!info || info.error) {
    showMessage(`the server did not answer: ${info && info.error}`);
    return;
  }
  S.info = info;
  wire();
  const u = readUrl();
  let size = Math.max(info.min_size, Math.min(info.max_size, u.size));
  if (u.start) size = u.start.split("/").length;
  S.size = size;
  $("size").value = String(size);
  S.start = u.start;
  S.moves = u.moves;
  S.at = u.at;
  loadOpenings();
  const ok = await loadGame();
  if (!ok && (S.moves.length || S.start)) {
    const why = $("message").textContent;
    await newGame(size, "", []);
    showMessage(`${why} — opened an empty board instead`);
  }
  document.body.dataset.ready = "1";
}

main();
