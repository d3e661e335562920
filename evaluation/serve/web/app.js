// checkers serve: the page's client. The server owns the rules: the board picture, the legal
// moves and every check come from it; this file only turns clicks into move texts.
"use strict";

const $ = (id) => document.getElementById(id);

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

function say(element, text, refused = false) {
  element.textContent = text;
  element.classList.toggle("refused", refused);
}

// -- tabs -------------------------------------------------------------------------------

let activePanel = "play";
for (const tab of document.querySelectorAll(".tab")) {
  tab.addEventListener("click", () => {
    activePanel = tab.dataset.panel;
    for (const other of document.querySelectorAll(".tab")) other.classList.toggle("active", other === tab);
    for (const panel of document.querySelectorAll(".panel")) panel.hidden = panel.id !== `panel-${activePanel}`;
  });
}

// -- describing an agent's reply ---------------------------------------------------------

function describeReply(reply, facts = true) {
  if (!reply) return "";
  let text = `<p><b>${escapeHtml(reply.agent)}</b> played <b>${escapeHtml(reply.move)}</b> after ${reply.seconds.toFixed(3)} s</p>`;
  const info = reply.info || {};
  const said = [];
  for (const name of ["depth", "value", "nodes", "backend"]) {
    if (info[name] !== undefined) said.push(`${name} ${escapeHtml(info[name])}`);
  }
  if (info.best_moves) said.push(`best ${escapeHtml(info.best_moves.join(" "))}`);
  if (info.pv) said.push(`principal variation ${escapeHtml(info.pv.join(" "))}`);
  if (facts && said.length) text += `<p>${said.join(", ")}</p>`;
  if (info.win_rates) {
    text += "<table><tr><th>move</th><th>win rate</th><th>playouts</th></tr>";
    for (const row of info.win_rates) {
      text += `<tr><td>${escapeHtml(row.move)}</td><td>${(100 * row.rate).toFixed(1)} %</td><td>${row.playouts}</td></tr>`;
    }
    text += "</table>";
  }
  return text;
}

function describeResult(state) {
  if (!state.over) return `${state.turn} to move (${state.to_move})`;
  const winner = { "1-0": "Black wins", "0-1": "White wins", "1/2-1/2": "Draw" }[state.result] || state.result;
  return `Game over: ${winner} (${state.result}, ${state.termination})`;
}

// -- Play --------------------------------------------------------------------------------

let game = null;     // the server's state of the game on the Play board
let selected = [];   // squares clicked so far for the move being entered
let busy = false;
let viewPly = null;  // the earlier ply shown on the board, or null for the game as it is now
let flipped = false; // turned around by the Flip button (on top of the server's own view)

function candidates(path) {
  return game.legal.filter((m) => path.every((square, i) => m.path[i] === square));
}

function playing() {
  return game && !game.over && game.to_move === "human" && viewPly === null;
}

function markBoard() {
  for (const rect of $("board").querySelectorAll("rect.square")) {
    rect.classList.remove("selected", "target", "forced");
  }
  const rectOf = (square) => $("board").querySelector(`rect.square[data-square="${square}"]`);
  if (!playing()) return;
  if (selected.length === 0 && game.must_capture) {
    for (const m of game.legal) rectOf(m.path[0]).classList.add("forced");
  }
  for (const square of selected) rectOf(square).classList.add("selected");
  if (selected.length) {
    for (const m of candidates(selected)) {
      if (m.path.length > selected.length) rectOf(m.path[selected.length]).classList.add("target");
    }
  }
}

// The engine's evaluation of its last reply up to `ply`: the bar, its number, depth and line.
function showEngine(ply) {
  const replies = game.replies.filter((r) => r.ply <= ply);
  const reply = replies.length ? replies[replies.length - 1] : null;
  const bar = reply && reply.evaluation;
  $("reply").innerHTML = describeReply(reply, !bar);  // with a bar, the engine's line below says it
  $("eval-bar").hidden = !bar;
  $("engine").innerHTML = "";
  if (!bar) return;
  // Black's share fills from Black's side of the board: the bottom unless the board is turned.
  const blackAtTop = game.flipped !== flipped;
  $("eval-bar").classList.toggle("black-top", blackAtTop);
  $("eval-black").style.setProperty("--share", `${(100 * bar.black).toFixed(1)}%`);
  const info = reply.info || {};
  const facts = [`<b>${escapeHtml(bar.text)}</b>`];
  if (info.depth !== undefined) facts.push(`depth ${escapeHtml(info.depth)}`);
  if (info.simulations !== undefined) facts.push(`${escapeHtml(info.simulations)} simulations`);
  if (info.nodes !== undefined) facts.push(`${escapeHtml(info.nodes)} nodes`);
  if (info.pv) facts.push(`line <span class="pv">${escapeHtml(info.pv.join(" "))}</span>`);
  $("engine").innerHTML = `<p>Engine (${escapeHtml(reply.agent)}, ply ${reply.ply}): ${facts.join(", ")}</p>`;
}

function showVerdict(verdict, turn) {
  if (!verdict) {
    $("egdb").textContent = "";
    return;
  }
  const other = turn === "black" ? "white" : "black";
  const side = (name) => name[0].toUpperCase() + name.slice(1);
  const distance = verdict.distance === null ? "" : ` in ${verdict.distance} plies`;
  const words = { win: `${side(turn)} wins${distance}`, loss: `${side(other)} wins${distance}`, draw: "Draw" }[verdict.value] || verdict.value;
  $("egdb").textContent = `Endgame database: ${words} with best play (exact, ${verdict.pieces}-piece database)`;
}

function moveList() {
  const whiteFirst = game.start_fen.startsWith("W");
  let html = "<ol>";
  let number = 1;
  const cell = (ply) => {
    const current = (viewPly === null ? game.moves.length : viewPly) === ply ? " current" : "";
    return `<button class="ply${current}" data-ply="${ply}">${escapeHtml(game.moves[ply - 1])}</button>`;
  };
  let ply = 1;
  if (whiteFirst && game.moves.length) {
    html += `<li value="1"><span class="ply">...</span>${cell(1)}</li>`;
    ply = 2;
    number = 2;
  }
  for (; ply <= game.moves.length; ply += 2, number += 1) {
    html += `<li value="${number}">${cell(ply)}${ply + 1 <= game.moves.length ? cell(ply + 1) : ""}</li>`;
  }
  $("move-list").innerHTML = html + "</ol>";
  $("move-list").hidden = !game.moves.length;
  const current = $("move-list").querySelector(".current");
  if (current) current.scrollIntoView({ block: "nearest" });
}

function showGame(state) {
  game = state;
  selected = [];
  viewPly = null;
  setupShown = false;
  $("board").innerHTML = state.svg;
  $("status").textContent = describeResult(state);
  $("fen").value = state.fen;
  $("pdn").value = state.pdn;
  showEngine(state.moves.length);
  showVerdict(state.egdb, state.turn);
  moveList();
  markBoard();
}

// An earlier position of the game, read-only: moves are made in the game as it is now.
async function showPlyOf(ply) {  // called through guarded(): one request at a time
  ply = Math.max(0, Math.min(game.moves.length, ply));
  if (ply === game.moves.length) {
    showGame(await api("GET", `/api/games/${game.id}`));
    say($("message"), playing() ? "Your move." : "");
    return;
  }
  const position = await api("GET", `/api/games/${game.id}/positions/${ply}`);
  viewPly = position.ply;
  selected = [];
  $("board").innerHTML = position.svg;
  $("fen").value = position.fen;
  $("status").textContent = `Ply ${position.ply} of ${position.plies}` + (position.move ? `, after ${position.move}` : ", the start") + `: ${position.turn} to move`;
  showEngine(position.ply);
  showVerdict(position.egdb, position.turn);
  moveList();
  say($("message"), "An earlier position: the last button (End) returns to the game.");
}

async function agentReplies() {
  while (game && !game.over && game.to_move !== "human") {
    say($("message"), `${game.to_move} is thinking...`);
    showGame(await api("POST", `/api/games/${game.id}/agent`));
  }
  say($("message"), game && !game.over ? "Your move: click a piece, then its landing squares." : "");
}

async function guarded(action) {
  if (busy) return;
  busy = true;
  try {
    await action();
  } catch (error) {
    say($("message"), error.message, true);
  } finally {
    busy = false;
  }
}

function opponentSpec() {
  const choice = $("opponent-choice").value;
  return choice === "other" ? $("opponent").value.trim() : choice;
}

$("opponent-choice").addEventListener("change", () => {
  $("opponent-label").hidden = $("opponent-choice").value !== "other";
});

$("new-game").addEventListener("click", () => guarded(async () => {
  const human = $("color").value;
  const opponent = opponentSpec();
  const body = { black: human === "black" ? "human" : opponent, white: human === "white" ? "human" : opponent };
  const kind = $("start-kind").value;
  if (kind === "ballot") body.opening = Number($("opening").value);
  if (kind === "fen") body.fen = $("fen-input").value.trim();
  if (kind === "setup") body.fen = setupFen();
  const state = await api("POST", "/api/games", body);
  if (kind === "setup") {  // the game starts: the editor gives the board back
    $("start-kind").value = "start";
    startKindChanged();
  }
  showGame(state);
  await agentReplies();
}));

function startKindChanged() {
  const kind = $("start-kind").value;
  $("opening-label").hidden = kind !== "ballot";
  $("fen-label").hidden = kind !== "fen";
  $("setup-tools").hidden = kind !== "setup";
  if (kind === "setup") {
    if (game) setupFrom(viewPly === null ? game.fen : $("fen").value);
    drawSetup();
    say($("message"), "Set up a position, then press New game.");
  } else if (setupShown) {
    setupShown = false;
    if (game) showGame(game); else $("board").innerHTML = "";
    say($("message"), "");
  }
}
$("start-kind").addEventListener("change", startKindChanged);

$("takeback").addEventListener("click", () => guarded(async () => {
  if (!game) return;
  showGame(await api("POST", `/api/games/${game.id}/takeback`));
  say($("message"), "Took back.");
}));

$("flip").addEventListener("click", () => {
  flipped = !flipped;
  $("board").classList.toggle("flipped", flipped);
  if (game && !setupShown) showEngine(viewPly === null ? game.moves.length : viewPly);
});

const navigate = (to) => guarded(async () => {
  if (game) await showPlyOf(to(viewPly === null ? game.moves.length : viewPly));
});
$("nav-first").addEventListener("click", () => navigate(() => 0));
$("nav-prev").addEventListener("click", () => navigate((ply) => ply - 1));
$("nav-next").addEventListener("click", () => navigate((ply) => ply + 1));
$("nav-last").addEventListener("click", () => navigate(() => Infinity));
$("move-list").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-ply]");
  if (button) navigate(() => Number(button.dataset.ply));
});
document.addEventListener("keydown", (event) => {
  if (activePanel !== "play" || !game || setupShown || event.target.matches("input, textarea, select")) return;
  const moves = { ArrowLeft: (p) => p - 1, ArrowRight: (p) => p + 1, Home: () => 0, End: () => Infinity };
  if (moves[event.key]) { event.preventDefault(); navigate(moves[event.key]); }
});

$("board").addEventListener("click", (event) => {
  const target = event.target.closest("[data-square]");
  if (!target || busy) return;
  const square = Number(target.dataset.square);
  if (setupShown) return setupClick(square);
  if (!game) return;
  if (viewPly !== null) return say($("message"), "An earlier position: press the last button (End) to play on.", true);
  if (game.over) return say($("message"), "The game is over: start a new one.", true);
  if (game.to_move !== "human") return say($("message"), "Wait: it is the agent's turn.", true);
  if (selected.length && square === selected[selected.length - 1] && selected.length === 1) {
    selected = [];
    markBoard();
    return say($("message"), "");
  }
  const extended = candidates([...selected, square]);
  if (selected.length === 0 || extended.length === 0) {
    if (candidates([square]).length) {  // (re)select a piece that can move
      selected = [square];
      markBoard();
      return say($("message"), game.must_capture ? "A capture is forced: jump square by square." : "");
    }
    const why = selected.length
      ? `Illegal: ${[...selected, square].join("-")} is not a legal move here.`
      : `Illegal: no legal move starts on ${square}` + (game.must_capture ? " (a capture is forced)." : ".");
    selected = [];
    markBoard();
    return say($("message"), why, true);
  }
  selected.push(square);
  const complete = extended.find((m) => m.path.length === selected.length);
  if (!complete) {
    markBoard();
    return say($("message"), "Keep jumping: the capture must be completed.");
  }
  guarded(async () => {
    showGame(await api("POST", `/api/games/${game.id}/move`, { move: complete.text }));
    await agentReplies();
  });
});

// -- setting up a position ----------------------------------------------------------------
// The editor draws its own board (the server checks the FEN when the game starts).

const PIECES = ["", "b", "B", "w", "W"];  // a click moves a square one step along this cycle
let setup = {};                          // square -> "b", "B", "w" or "W"
let setupShown = false;

function setupFrom(fen) {
  setup = {};
  const [turn, ...sides] = fen.split(":");
  $("setup-turn").value = turn === "W" ? "W" : "B";
  for (const side of sides) {
    const color = side[0].toLowerCase();
    for (const item of side.slice(1).split(",")) {
      if (!item) continue;
      const king = item.startsWith("K");
      setup[Number(king ? item.slice(1) : item)] = king ? color.toUpperCase() : color;
    }
  }
}

function setupFen() {
  const side = (color) => Object.keys(setup).map(Number).sort((a, b) => a - b)
    .filter((square) => setup[square].toLowerCase() === color)
    .map((square) => (setup[square] === color.toUpperCase() ? "K" : "") + square).join(",");
  return `${$("setup-turn").value}:W${side("w")}:B${side("b")}`;
}

function drawSetup() {
  setupShown = true;
  selected = [];
  let svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8" class="setup-board">';
  for (let row = 0; row < 8; row += 1) {  // row 0: Black's back rank, drawn at the bottom as the server does
    for (let column = 0; column < 8; column += 1) {
      const x = column;
      const y = 7 - row;
      if ((row + column) % 2 === 1) { svg += `<rect x="${x}" y="${y}" width="1" height="1" class="light"/>`; continue; }
      const square = 4 * row + 4 - Math.floor(column / 2);  // square 4 at Black's left, square 1 at column 6
      svg += `<rect x="${x}" y="${y}" width="1" height="1" class="square dark" data-square="${square}"/>`;
      svg += `<text x="${x + 0.06}" y="${y + 0.22}" class="number">${square}</text>`;
      const piece = setup[square];
      if (piece) {
        const color = piece.toLowerCase() === "b" ? "black" : "white";
        svg += `<circle cx="${x + 0.5}" cy="${y + 0.5}" r="0.38" class="piece ${color}" data-square="${square}"/>`;
        if (piece === piece.toUpperCase()) svg += `<circle cx="${x + 0.5}" cy="${y + 0.5}" r="0.15" class="crown" data-square="${square}"/>`;
      }
    }
  }
  $("board").innerHTML = svg + "</svg>";
  $("fen").value = setupFen();
}

function setupClick(square) {
  const next = PIECES[(PIECES.indexOf(setup[square] || "") + 1) % PIECES.length];
  if (next) setup[square] = next; else delete setup[square];
  drawSetup();
}

$("setup-turn").addEventListener("change", drawSetup);
$("setup-clear").addEventListener("click", () => { setup = {}; drawSetup(); });
$("setup-initial").addEventListener("click", () => { setupFrom("B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"); drawSetup(); });

// -- Watch -------------------------------------------------------------------------------

let watching = null;  // the watched game's id while it runs

function delayText() {
  $("watch-delay-text").textContent = `${(Number($("watch-delay").value) / 1000).toFixed(1)} s`;
}
$("watch-delay").addEventListener("input", delayText);
delayText();

$("watch-start").addEventListener("click", async () => {
  try {
    let state = await api("POST", "/api/games", { black: $("watch-black").value.trim(), white: $("watch-white").value.trim() });
    const id = state.id;
    watching = id;
    say($("watch-message"), "");
    const show = (s) => {
      $("watch-board").innerHTML = s.svg;
      $("watch-status").textContent = `${s.moves.length} plies. ` + describeResult(s);
      $("watch-pdn").value = s.pdn;
      const r = s.replies;
      $("watch-reply").innerHTML = describeReply(r.length ? r[r.length - 1] : null);
    };
    show(state);
    while (!state.over && watching === id) {
      await new Promise((done) => setTimeout(done, Number($("watch-delay").value)));
      if (watching !== id) break;
      state = await api("POST", `/api/games/${id}/agent`);
      show(state);
    }
  } catch (error) {
    say($("watch-message"), error.message, true);
  }
});
$("watch-stop").addEventListener("click", () => { watching = null; say($("watch-message"), "Stopped."); });

// -- League ------------------------------------------------------------------------------

let league = null;
let replay = null;  // {number, ply, plies}

function table(rows, columns) {
  if (!rows.length) return "<p>(none)</p>";
  columns = columns || Object.keys(rows[0]);
  let html = "<table><tr>" + columns.map((c) => `<th>${escapeHtml(c)}</th>`).join("") + "</tr>";
  for (const row of rows) html += "<tr>" + columns.map((c) => `<td>${escapeHtml(row[c] ?? "")}</td>`).join("") + "</tr>";
  return html + "</table>";
}

async function openLeague(index) {
  try {
    league = await api("GET", `/api/leagues/${index}`);
    $("ratings").innerHTML = table(league.ratings);
    $("crosstable").innerHTML = table(league.crosstable);
    $("heatmap").hidden = !league.files.includes("heatmap.png");
    if (!$("heatmap").hidden) $("heatmap").src = `/api/leagues/${index}/files/heatmap.png`;
    let html = "<table><tr><th>#</th><th>Black</th><th>White</th><th>result</th><th>plies</th><th>opening</th></tr>";
    for (const g of league.games) {
      html += `<tr data-game="${g.index}" id="game-row-${g.index}"><td>${g.index}</td><td>${escapeHtml(g.black)}</td><td>${escapeHtml(g.white)}</td>` +
        `<td>${escapeHtml(g.result)}</td><td>${g.plies}</td><td>${escapeHtml(g.opening)}</td></tr>`;
    }
    $("games").innerHTML = html + "</table>";
    say($("league-message"), `${league.games.length} games. Click one to replay it (arrow keys step through it).`);
  } catch (error) {
    say($("league-message"), error.message, true);
  }
}

async function showPly(number, ply) {
  try {
    const position = await api("GET", `/api/leagues/${league.index}/games/${number}/${ply}`);
    replay = { number, ply: position.ply, plies: position.plies };
    $("replay-board").innerHTML = position.svg;
    const move = position.move ? `, last move ${position.move}` : "";
    $("replay-status").textContent = `Game ${number}: ${position.black} - ${position.white}, ply ${position.ply} of ${position.plies}${move}` +
      (position.ply === position.plies ? ` (${position.result}, ${position.termination})` : "");
    for (const row of $("games").querySelectorAll("tr")) row.classList.toggle("current", row.dataset.game === String(number));
  } catch (error) {
    say($("league-message"), error.message, true);
  }
}

$("games").addEventListener("click", (event) => {
  const row = event.target.closest("tr[data-game]");
  if (row) showPly(Number(row.dataset.game), 0);
});
const step = (to) => { if (replay) showPly(replay.number, Math.max(0, Math.min(replay.plies, to(replay)))); };
$("replay-first").addEventListener("click", () => step(() => 0));
$("replay-prev").addEventListener("click", () => step((r) => r.ply - 1));
$("replay-next").addEventListener("click", () => step((r) => r.ply + 1));
$("replay-last").addEventListener("click", () => step((r) => r.plies));
document.addEventListener("keydown", (event) => {
  if (activePanel !== "league" || !replay || event.target.matches("input, textarea, select")) return;
  const moves = { ArrowLeft: (r) => r.ply - 1, ArrowRight: (r) => r.ply + 1, Home: () => 0, End: (r) => r.plies };
  if (moves[event.key]) { event.preventDefault(); step(moves[event.key]); }
});
$("league-select").addEventListener("change", () => openLeague(Number($("league-select").value)));

// -- the opponents offered by name ----------------------------------------------------------

async function loadOpponents() {
  let opponents = [];
  try {
    ({ opponents } = await api("GET", "/api/opponents"));
  } catch (error) {  // the typed spec still works
    say($("message"), `No list of opponents: ${error.message}`, true);
  }
  const groups = { baseline: "Baselines", zoo: "The zoo" };
  let html = "";
  for (const [group, label] of Object.entries(groups)) {
    const entries = opponents.filter((o) => o.group === group);
    if (!entries.length) continue;
    html += `<optgroup label="${label}">`;
    for (const o of entries) {
      const rating = o.rating === null ? "unrated" : `Elo ${Math.round(o.rating)}`;
      const name = o.name === o.spec ? o.spec : `${o.name} (${o.spec})`;
      html += `<option value="${escapeHtml(o.spec)}" title="${escapeHtml(o.description)}">${escapeHtml(name)}: ${rating}</option>`;
    }
    html += "</optgroup>";
  }
  $("opponent-choice").innerHTML = html + '<option value="other">other: type a spec</option>';
  $("opponent-choice").value = opponents.some((o) => o.spec === "greedy") ? "greedy" : "other";
  $("opponent-label").hidden = $("opponent-choice").value !== "other";
  const specs = new Set([...opponents.map((o) => o.spec)]);
  $("agent-kinds").innerHTML += [...specs].map((s) => `<option value="${escapeHtml(s)}">`).join("");
}

// -- start -------------------------------------------------------------------------------

(async () => {
  try {
    const config = await api("GET", "/api/config");
    $("agent-kinds").innerHTML = config.agent_kinds.map((k) => `<option value="${escapeHtml(k)}">`).join("");
    await loadOpponents();
    $("opening").innerHTML = config.openings.map((o, i) => `<option value="${i}">${i + 1}. ${escapeHtml(o)}</option>`).join("");
    $("league-select").innerHTML = config.leagues.map((name, i) => `<option value="${i}">${escapeHtml(name)}</option>`).join("");
    if (config.leagues.length) openLeague(0);
    else say($("league-message"), "No league folder: start the server with checkers serve --league DIR.");
    $("new-game").click();
  } catch (error) {
    say($("message"), error.message, true);
  }
  document.body.dataset.ready = "true";
})();
