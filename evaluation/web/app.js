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

function describeReply(reply) {
  if (!reply) return "";
  let text = `<p><b>${escapeHtml(reply.agent)}</b> played <b>${escapeHtml(reply.move)}</b> after ${reply.seconds.toFixed(3)} s</p>`;
  const info = reply.info || {};
  const facts = [];
  for (const name of ["depth", "value", "nodes", "backend"]) {
    if (info[name] !== undefined) facts.push(`${name} ${escapeHtml(info[name])}`);
  }
  if (info.best_moves) facts.push(`best ${escapeHtml(info.best_moves.join(" "))}`);
  if (info.pv) facts.push(`principal variation ${escapeHtml(info.pv.join(" "))}`);
  if (facts.length) text += `<p>${facts.join(", ")}</p>`;
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

function candidates(path) {
  return game.legal.filter((m) => path.every((square, i) => m.path[i] === square));
}

function markBoard() {
  for (const rect of $("board").querySelectorAll("rect.square")) {
    rect.classList.remove("selected", "target", "forced");
  }
  const rectOf = (square) => $("board").querySelector(`rect.square[data-square="${square}"]`);
  if (!game || game.over || game.to_move !== "human") return;
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

function showGame(state) {
  game = state;
  selected = [];
  $("board").innerHTML = state.svg;
  $("status").textContent = describeResult(state);
  $("fen").value = state.fen;
  $("pdn").value = state.pdn;
  const replies = state.replies;
  $("reply").innerHTML = describeReply(replies.length ? replies[replies.length - 1] : null);
  if (state.egdb) {
    const e = state.egdb;
    const distance = e.distance === null ? "" : ` in ${e.distance} plies`;
    $("egdb").textContent = `Endgame database: ${e.value}${distance} for ${state.turn} (exact, ${e.pieces}-piece database)`;
  } else {
    $("egdb").textContent = "";
  }
  markBoard();
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

$("new-game").addEventListener("click", () => guarded(async () => {
  const human = $("color").value;
  const opponent = $("opponent").value.trim();
  const body = { black: human === "black" ? "human" : opponent, white: human === "white" ? "human" : opponent };
  const kind = $("start-kind").value;
  if (kind === "ballot") body.opening = Number($("opening").value);
  if (kind === "fen") body.fen = $("fen-input").value.trim();
  showGame(await api("POST", "/api/games", body));
  await agentReplies();
}));

$("start-kind").addEventListener("change", () => {
  $("opening-label").hidden = $("start-kind").value !== "ballot";
  $("fen-label").hidden = $("start-kind").value !== "fen";
});

$("takeback").addEventListener("click", () => guarded(async () => {
  if (!game) return;
  showGame(await api("POST", `/api/games/${game.id}/takeback`));
  say($("message"), "Took back.");
}));

$("board").addEventListener("click", (event) => {
  const target = event.target.closest("[data-square]");
  if (!target || !game || busy) return;
  const square = Number(target.dataset.square);
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

// -- start -------------------------------------------------------------------------------

(async () => {
  try {
    const config = await api("GET", "/api/config");
    $("agent-kinds").innerHTML = config.agent_kinds.map((k) => `<option value="${escapeHtml(k)}">`).join("");
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
