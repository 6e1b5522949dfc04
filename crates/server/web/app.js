/* Damspel web page: plays every variant of the catalogue against the engine or between two
 * people, through the JSON API of docs/api.md. Plain ES module, no build step, no network
 * beyond the page's own server.
 *
 * Stable hooks for tests (all `data-` attributes; nothing else is a contract):
 *
 * Board container `[data-role="board"]` (id `board`):
 *   data-mode            "play" | "editor" | "preview" (no game loaded yet)
 *   data-game-id         current game id ("" when none)
 *   data-variant         variant id
 *   data-fen             current position (FEN, as the server gave it)
 *   data-side-to-move    "white" | "black"
 *   data-ply             number of plies played (history length)
 *   data-version         the shown state's version (docs/api.md: it grows with every change)
 *   data-redo            plies available to redo
 *   data-human-to-move   "true" when a person may move now (game on, human's turn, nothing pending)
 *   data-engine-thinking "true" while an engine search (move or hint) runs
 *   data-busy            "true" while any request to the server is pending or the engine thinks
 *   data-outcome         "" while the game goes on, else the result as the variant's PDN writes it
 *                        ("1-0", "0-1", "1/2-1/2"; "2-0", "0-2", "1-1" in International; ...)
 *   data-legal           JSON array of the legal moves: [{full, notation, from, to, path, captures}]
 *   data-selected        square of the selected piece, or ""
 *   data-choosing        "true" while the player must pick between captures that share from and to
 *   data-route-options   JSON array of the squares that may be clicked next to pick the route
 *   data-flipped         "true" when Black is at the bottom
 * Squares: `[data-square="32"]` (every playable square, named as the variant writes it: numbers on
 *   most dark-squares boards, a1.. on all-squares boards and in Russian and Brazilian) with markers: data-target="true" (destination of the selected piece),
 *   data-route-option="true" (next landing square to click while choosing a route),
 *   data-must-capture="true" (its piece must capture), data-last="from|to|path|capture".
 * Pieces: `[data-piece="white-man|white-king|black-man|black-king"]` with data-square.
 * Moving: click the from square then the to square (or drag the piece). When several captures
 *   share from and to, data-choosing turns "true": click the squares of data-route-options
 *   (the next landing square of the wanted route) until it is played, or click a route button
 *   `[data-action="pick-route"][data-full="..."]` (`cancel-route` gives up). A capture may also
 *   be entered jump by jump: from square, first landing square, then the route options.
 * Buttons: data-action = new-game, games, undo, redo, flip, hint, engine-play (shown when the
 *   engine waits after an undo or redo), rules, share, editor, start-game, rematch, close,
 *   copy-fen, copy-pdn, download-pdn (a download link), import, resume (with data-game),
 *   game-pdn (download link in the games list), pick-route, cancel-route, editor-clear,
 *   editor-start, editor-check, editor-play, editor-exit.
 * New game dialog `[data-dialog="new-game"]`: variant entries `[data-variant="turkish"]`,
 *   radios `[data-opponent="engine|human"]`, `[data-color="white|black|random"]`,
 *   `[data-field="engine-time"]` (seconds), presets `[data-time]`, `[data-field="engine-level"]`
 *   (a select, 1 to 8).
 * Editor: tools `[data-tool="white-man|white-king|black-man|black-king|erase"]`, fields
 *   data-field = editor-variant, editor-side (W|B), editor-fen, editor-players
 *   (human-human|human-engine|engine-human); `[data-role="editor-msg"]` gets data-ok="true|false"
 *   with the answer of POST /api/positions/check.
 * FEN / PDN dialog: data-field = fen-out (the current FEN), import-variant, import-text (FEN or
 *   PDN), import-players (as editor-players).
 * Other: `[data-role="result"]` (shown with data-result when the game is over),
 *   `[data-role="movelist"]` with `[data-ply]` entries, `[data-role="engine-depth|engine-score|
 *   engine-pv"]`, `[data-role="evalbar"]` (data-score, White's view), `[data-role="toasts"]`,
 *   dialogs `[data-dialog="new-game|rules|share|games"]`, games list rows `[data-game]`.
 * The URL holds the game: `#/game/ID` (a reload resumes it).
 * Details (issue 12, item 7): `[data-field="lang"]` (language picker, i18n.js; <html lang>),
 *   `[data-action="settings"]` and `[data-dialog="settings"]` (prefs.js), keyboard entry
 *   `[data-field="move-input"]` in the form `[data-role="move-entry"]` with its answer in
 *   `[data-role="move-entry-msg"]` (data-ok="false" when refused), the picker's short list
 *   `[data-family="popular"]`, numbered variants' notes `[data-role="variant-note"]`, square
 *   numbers `#board .nums text`.
 */

// `tr` (not `t`, a common local name here, e.g. for the move tree) gives the page's strings.
import { t as tr, ready as i18nReady } from './i18n.js';
import { prefs, playSound } from './prefs.js';

const C = 100; // cell size in SVG units
const MARGIN = 30; // room for the coordinates (left and bottom)
const PAD = 8; // frame on the top and right

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const other = (side) => (side === 'white' ? 'black' : 'white');
const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

const S = {
  families: [],
  variants: [], // summaries
  details: new Map(), // id -> detail (with squares, rules, start_fen)
  game: null,
  detail: null, // detail of the shown variant
  mode: 'preview',
  previewPieces: [],
  flipped: false,
  sel: null,
  choosing: null, // {from, to, cands, prefix}
  pending: 0,
  engine: null, // {kind: 'engine'|'hint', gameId, side}
  enginePaused: false,
  info: null,
  evalWhite: null, // last score from White's view: {men}|{win}|{loss}
  hint: null,
  es: null,
  esGame: null,
  held: null, // the newest `state` event that came while the page waited for its own answer
  drag: null,
  animateNext: true,
  editor: null,
  pick: null, // variant id picked in the new game dialog
  settings: loadSettings(),
};

function loadSettings() {
  const d = { variant: 'international', opponent: 'engine', color: 'white', time: 1 };
  try {
    return { ...d, ...JSON.parse(localStorage.getItem('damspel.settings') || '{}') };
  } catch {
    return d;
  }
}
function saveSettings() {
  try {
    localStorage.setItem('damspel.settings', JSON.stringify(S.settings));
  } catch { /* private mode */ }
}

/* ---------- seats ---------- */

/** The game id of an API path `/api/games/{id}/...`, if any. */
function gameOfPath(path) {
  const m = /^\/api\/games\/([A-Za-z0-9]+)(\/|$)/.exec(path);
  return m && m[1] !== 'import' ? m[1] : null;
}

/** Seats kept for this page only, where localStorage cannot be used. */
const SEATS_HERE = new Map();

/** The seat secrets of a game kept in this browser ({white, black}, each optional). */
function seatsOf(id) {
  try {
    const kept = JSON.parse(localStorage.getItem(`damspel.seats.${id}`) || '{}') || {};
    return { ...(SEATS_HERE.get(id) || {}), ...kept };
  } catch {
    return SEATS_HERE.get(id) || {};
  }
}

function seatSecrets(id) {
  return Object.values(seatsOf(id)).filter((v) => typeof v === 'string');
}

/** Keeps the secrets the server hands out once (at creation, or when a seat is claimed). */
function keepSeats(id, given) {
  SEATS_HERE.set(id, { ...(SEATS_HERE.get(id) || {}), ...given });
  try {
    localStorage.setItem(`damspel.seats.${id}`, JSON.stringify({ ...seatsOf(id), ...given }));
  } catch { /* private mode: the seats last as long as the page */ }
}

/* ---------- server ---------- */

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** A request to the server; `track` false keeps it out of the pending count (engine searches,
 * which are shown by S.engine instead). */
async function api(method, path, body, track = true, signal = undefined) {
  if (track) S.pending++;
  syncBoardAttrs();
  try {
    const opt = { method, headers: {}, signal };
    if (body !== undefined) {
      opt.headers['Content-Type'] = 'application/json';
      opt.body = JSON.stringify(body);
    }
    // The seats this browser holds in the game: only they may change it (docs/api.md).
    const game = gameOfPath(path);
    const held = game ? seatSecrets(game) : [];
    // (A GET of a review too: in a game between two players it is its asker's own.)
    if ((method !== 'GET' || path.endsWith('/review')) && held.length) opt.headers['X-Damspel-Seat'] = held.join(',');
    const r = await fetch(path, opt);
    const text = await r.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = text;
    }
    if (!r.ok) throw new ApiError(r.status, (data && data.error) || `${r.status} ${r.statusText}`);
    if (data && typeof data === 'object' && data.seats && (data.id || game)) {
      keepSeats(data.id || game, data.seats);
    }
    return data;
  } finally {
    if (track) S.pending--;
    syncBoardAttrs();
    if (track) catchUpSoon();
  }
}

/** The engine searches for the game on the board (a search for a game left behind does not count). */
function engineBusy() {
  return !!(S.engine && S.game && S.engine.gameId === S.game.id);
}

async function variantDetail(id) {
  if (!S.details.has(id)) {
    const d = await api('GET', `/api/variants/${encodeURIComponent(id)}`);
    d.byName = new Map(d.squares.map((s) => [s.name, s]));
    d.byXY = new Map(d.squares.map((s) => [`${s.x},${s.y}`, s.name]));
    d.order = new Map(d.squares.map((s, i) => [s.name, i]));
    S.details.set(id, d);
  }
  return S.details.get(id);
}

/* ---------- toasts ---------- */

function toast(msg, kind = 'error') {
  const box = $('[data-role="toasts"]');
  const el = document.createElement('div');
  el.className = `toast ${kind}`;
  el.setAttribute('data-toast', kind);
  el.textContent = msg;
  box.appendChild(el);
  // Modal dialogs live in the top layer; showing the toasts as a popover puts them above any
  // open dialog (hide and show again to come out on top of one opened since).
  if (box.showPopover) {
    if (box.matches(':popover-open')) box.hidePopover();
    box.showPopover();
  }
  const life = kind === 'error' ? 4500 : 2200;
  setTimeout(() => el.classList.add('out'), life);
  setTimeout(() => el.remove(), life + 500);
}

/* ---------- FEN (client side: editor and previews) ---------- */

function parseFen(detail, fen) {
  const text = String(fen || '').trim().replace(/\.$/, '');
  const parts = text.split(':');
  const side = (parts[0] || '').toUpperCase();
  if (side !== 'W' && side !== 'B') throw new Error('a FEN starts with W or B (the side to move)');
  const pieces = new Map();
  for (const raw of parts.slice(1)) {
    const p = raw.trim();
    if (!p) continue;
    const c = p[0].toUpperCase();
    if (c === 'H' || c === 'F') continue; // move counters some programs append
    if (c !== 'W' && c !== 'B') throw new Error(`unexpected "${p}"`);
    const color = c === 'W' ? 'white' : 'black';
    for (let tok of p.slice(1).split(',')) {
      tok = tok.trim();
      if (!tok) continue;
      const king = /^K/i.test(tok);
      if (king) tok = tok.slice(1);
      let names = [tok];
      const m = /^(\d+)-(\d+)$/.exec(tok);
      if (m) {
        names = [];
        for (let i = +m[1]; i <= +m[2]; i++) names.push(String(i));
      }
      for (const n of names) {
        const name = detail.byName.has(n) ? n : n.toLowerCase();
        if (!detail.byName.has(name)) throw new Error(`"${n}" is not a square of this board`);
        pieces.set(name, { color, king });
      }
    }
  }
  return { side: side === 'W' ? 'white' : 'black', pieces };
}

function writeFen(detail, side, pieces) {
  const list = (color) =>
    [...pieces.entries()]
      .filter(([, p]) => p.color === color)
      .sort((a, b) => detail.order.get(a[0]) - detail.order.get(b[0]))
      .map(([n, p]) => (p.king ? 'K' : '') + n)
      .join(',');
  return `${side === 'white' ? 'W' : 'B'}:W${list('white')}:B${list('black')}`;
}

function piecesFromMap(detail, map) {
  return [...map.entries()].map(([square, p]) => {
    const s = detail.byName.get(square);
    return { square, x: s.x, y: s.y, color: p.color, king: p.king };
  });
}

/* ---------- board drawing ---------- */

const CROWN = 'M29 61 L26 38 L39 48 L50 31 L61 48 L74 38 L71 61 Z M29 65 H71 V71 H29 Z';

function pieceDefs(prefix) {
  // Colours come from CSS variables (style.css, one set per piece theme), with the classic set
  // as the fallback.
  const v = (name, dflt) => `var(--${name}, ${dflt})`;
  const man = (color) => {
    const w = color === 'white';
    const c = w ? 'pw' : 'pb';
    return `<g id="${prefix}-${color}-man">
      <ellipse cx="50" cy="58" rx="39" ry="36" style="fill:${v('pc-shadow', 'rgba(0,0,0,.28)')}"/>
      <circle cx="50" cy="54" r="38" style="fill:${v(`${c}-base`, w ? '#b9ab8f' : '#0b0b0b')}"/>
      <circle cx="50" cy="49" r="38" fill="url(#${prefix}-g-${color})" style="stroke:${v(`${c}-edge`, w ? '#8d8068' : '#000')}" stroke-width="2"/>
      <circle cx="50" cy="49" r="27" fill="none" style="stroke:${v(`${c}-ring1`, w ? '#d3c6aa' : '#4a4a4a')}" stroke-width="3"/>
      <circle cx="50" cy="49" r="17" fill="none" style="stroke:${v(`${c}-ring2`, w ? '#ddd2ba' : '#3c3c3c')}" stroke-width="2"/>
    </g>`;
  };
  const king = (color) => {
    const w = color === 'white';
    const c = w ? 'pw' : 'pb';
    return `<g id="${prefix}-${color}-king">
      <use href="#${prefix}-${color}-man"/>
      <path d="${CROWN}" transform="translate(50 49) scale(.62) translate(-50 -51)" style="fill:${v(`${c}-crown`, w ? '#c9972b' : '#e3b548')};stroke:${v(`${c}-crown-edge`, w ? '#7a5a12' : '#8a6414')}" stroke-width="3" stroke-linejoin="round"/>
    </g>`;
  };
  return `<defs>
    <radialGradient id="${prefix}-g-white" cx="38%" cy="32%" r="75%"><stop offset="0" style="stop-color:${v('pw-g0', '#fffdf6')}"/><stop offset="1" style="stop-color:${v('pw-g1', '#e6dcc6')}"/></radialGradient>
    <radialGradient id="${prefix}-g-black" cx="38%" cy="32%" r="75%"><stop offset="0" style="stop-color:${v('pb-g0', '#4a4a4a')}"/><stop offset="1" style="stop-color:${v('pb-g1', '#1a1a1a')}"/></radialGradient>
    <marker id="${prefix}-arrow" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="3.2" markerHeight="3.2" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="context-stroke"/></marker>
    ${man('white')}${man('black')}${king('white')}${king('black')}
  </defs>`;
}

/** Screen cell of board coordinates. */
function cellOf(detail, x, y, flipped) {
  const { width: w, height: h } = detail.board;
  return flipped ? { cx: (w - 1 - x) * C, cy: y * C } : { cx: x * C, cy: (h - 1 - y) * C };
}

/**
 * The board as SVG markup. opts: {pieces, flipped, coords, numbers, marks: Map(square -> Set of
 * marks), arrows: [{squares, cls}], prefix, last}
 */
function boardSvg(detail, opts) {
  const { width: w, height: h, squares: kind } = detail.board;
  const flipped = !!opts.flipped;
  const coords = opts.coords !== false;
  const prefix = opts.prefix || 'b';
  const left = coords ? MARGIN : PAD;
  const bottom = coords ? MARGIN : PAD;
  const vb = `${-left} ${-PAD} ${w * C + left + PAD} ${h * C + bottom + PAD}`;
  const allSquares = kind === 'all';
  let sq = '';
  let nums = '';
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const { cx, cy } = cellOf(detail, x, y, flipped);
      const name = detail.byXY.get(`${x},${y}`);
      const darkCell = (x + y) % 2 === 0;
      if (name === undefined) {
        sq += `<rect class="sq off" x="${cx}" y="${cy}" width="${C}" height="${C}"/>`;
        continue;
      }
      const marks = opts.marks?.get(name);
      const attrs = [];
      const cls = ['sq', allSquares ? (darkCell ? 'all-a' : 'all-b') : 'on'];
      if (marks) {
        for (const m of marks) {
          if (m.startsWith('last-')) cls.push(m);
          else cls.push(`m-${m}`);
        }
        if (marks.has('target')) attrs.push('data-target="true"');
        if (marks.has('route')) attrs.push('data-route-option="true"');
        if (marks.has('must')) attrs.push('data-must-capture="true"');
        const last = ['from', 'to', 'path', 'capture'].filter((k) => marks.has(`last-${k}`));
        if (last.length) attrs.push(`data-last="${last.join(' ')}"`);
      }
      sq += `<rect class="${cls.join(' ')}" data-square="${esc(name)}" x="${cx}" y="${cy}" width="${C}" height="${C}" ${attrs.join(' ')}/>`;
      // Square numbers are drawn on numbered boards only: an algebraic name (Russian, Brazilian)
      // is already given by the file letters and rank numbers in the margins.
      // They are drawn over the pieces, in the cell's corner with a halo, so that they stay
      // readable beside a piece instead of hiding under it.
      if (opts.numbers && !allSquares && /^[0-9]+$/.test(name)) nums += `<text class="sqnum" x="${cx + 5}" y="${cy + 17}">${esc(name)}</text>`;
    }
  }
  // markers drawn over squares, under pieces
  let mk = '';
  if (opts.marks) {
    for (const [name, marks] of opts.marks) {
      const s = detail.byName.get(name);
      if (!s) continue;
      const { cx, cy } = cellOf(detail, s.x, s.y, flipped);
      if (marks.has('last-capture')) mk += `<path class="mk-capture" d="M${cx + 36} ${cy + 36} l28 28 M${cx + 64} ${cy + 36} l-28 28"/>`;
      if (marks.has('last-path')) mk += `<circle class="mk-path" cx="${cx + 50}" cy="${cy + 50}" r="7"/>`;
    }
  }
  let arrows = '';
  let under = '';
  for (const a of opts.arrows || []) {
    const pts = a.squares.map((n) => {
      const s = detail.byName.get(n);
      const { cx, cy } = cellOf(detail, s.x, s.y, flipped);
      return `${cx + 50},${cy + 50}`;
    });
    const line = `<polyline class="arrow ${a.cls || ''}" points="${pts.join(' ')}" marker-end="url(#${prefix}-arrow)"/>`;
    if (pts.length < 2) continue;
    if (a.under) under += line;
    else arrows += line;
  }
  let targets = '';
  if (opts.marks) {
    const occupied = new Set((opts.pieces || []).map((p) => p.square));
    for (const [name, marks] of opts.marks) {
      if (marks.has('must')) {
        const s = detail.byName.get(name);
        const { cx, cy } = cellOf(detail, s.x, s.y, flipped);
        targets += `<circle class="must-ring" cx="${cx + 50}" cy="${cy + 50}" r="44"/>`;
      }
      if (!marks.has('target') && !marks.has('route')) continue;
      const s = detail.byName.get(name);
      const { cx, cy } = cellOf(detail, s.x, s.y, flipped);
      if (occupied.has(name)) targets += `<circle class="tg ring" cx="${cx + 50}" cy="${cy + 50}" r="44"/>`;
      else targets += `<circle class="tg ${marks.has('route') ? 'route' : 'dot'}" cx="${cx + 50}" cy="${cy + 50}" r="${marks.has('route') ? 20 : 16}"/>`;
    }
  }
  let pcs = '';
  for (const p of opts.pieces || []) {
    const { cx, cy } = cellOf(detail, p.x, p.y, flipped);
    const kindName = `${p.color}-${p.king ? 'king' : 'man'}`;
    const marks = opts.marks?.get(p.square);
    const cls = ['pc', p.color, p.king ? 'king' : 'man'];
    if (marks?.has('must')) cls.push('must');
    if (marks?.has('selected')) cls.push('selected');
    pcs += `<g class="${cls.join(' ')}" data-piece="${kindName}" data-square="${esc(p.square)}" style="transform:translate(${cx}px,${cy}px)"><use href="#${prefix}-${kindName}"/></g>`;
  }
  let coordText = '';
  if (coords) {
    for (let x = 0; x < w; x++) {
      const { cx } = cellOf(detail, x, 0, flipped);
      coordText += `<text class="coord" x="${cx + 50}" y="${h * C + 22}">${String.fromCharCode(97 + x)}</text>`;
    }
    for (let y = 0; y < h; y++) {
      const { cy } = cellOf(detail, 0, y, flipped);
      coordText += `<text class="coord" x="${-MARGIN / 2}" y="${cy + 57}">${y + 1}</text>`;
    }
  }
  return `<svg class="board-svg ${allSquares ? 'all' : 'dark'}" viewBox="${vb}" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${esc(detail.name)} board">
    ${pieceDefs(prefix)}
    <rect class="frame" x="${-left}" y="${-PAD}" width="${w * C + left + PAD}" height="${h * C + bottom + PAD}" rx="12"/>
    <g class="squares">${sq}</g><g class="marks">${mk}</g>
    <g class="under">${under}</g><g class="targets">${targets}</g>
    <g class="pieces">${pcs}</g><g class="nums" data-role="square-numbers">${nums}</g><g class="arrows">${arrows}</g>
    ${coordText}
  </svg>`;
}

/* ---------- main board ---------- */

function humanToMove() {
  const g = S.game;
  const mine = g && (g[g.side_to_move] === 'human' || inThePast());
  return !!(S.mode === 'play' && g && !g.outcome && mine && !engineBusy() && S.pending === 0 && g.legal.length);
}

function movesFrom(sq) {
  return (S.game?.legal || []).filter((m) => m.from === sq);
}

function currentMarks() {
  const marks = new Map();
  const add = (sq, m) => {
    if (!marks.has(sq)) marks.set(sq, new Set());
    marks.get(sq).add(m);
  };
  if (S.mode === 'editor') return marks;
  const g = S.game;
  if (!g) return marks;
  const last = g.history[g.history.length - 1];
  if (last) {
    add(last.from, 'last-from');
    add(last.to, 'last-to');
    for (const p of last.path.slice(0, -1)) add(p, 'last-path');
    for (const c of last.captures) add(c, 'last-capture');
  }
  const mine = (g[g.side_to_move] === 'human' || inThePast()) && !g.outcome;
  if (mine) for (const s of g.must_capture || []) add(s, 'must');
  if (S.choosing) {
    add(S.choosing.from, 'selected');
    for (const s of routeOptions()) add(s, 'route');
    for (const s of S.choosing.prefix) add(s, 'route-done');
  } else if (S.sel) {
    add(S.sel, 'selected');
    for (const m of movesFrom(S.sel)) add(m.to, 'target');
  }
  return marks;
}

function currentArrows() {
  const arrows = [];
  if (S.hint && S.game && S.hint.gameId === S.game.id && S.hint.fen === S.game.fen) {
    arrows.push({ squares: [S.hint.from, ...S.hint.path], cls: 'hint' });
  }
  if (S.choosing) {
    for (const c of remainingRoutes()) arrows.push({ squares: [c.from, ...c.path], cls: 'route', under: true });
  }
  arrows.push(...analysisArrows());
  return arrows;
}

function shownPieces() {
  if (S.mode === 'editor') return piecesFromMap(S.editor.detail, S.editor.pieces);
  if (S.mode === 'play' && S.game) return S.game.pieces;
  return S.previewPieces;
}

/* ---------- endgame tables: the verdict on the position shown (play, analysis, editor) ---------- */

let tbKey = '';
/** Asks GET /api/tablebase when the position shown changes; shows the verdict and every
 *  move's value, or hides the panel outside the tables. */
async function renderTablebase() {
  const el = $('[data-role="tb"]');
  if (!el) return;
  const id = S.mode === 'editor' ? S.editor?.detail?.id : S.detail?.id;
  const fen = S.mode === 'editor' ? (S.editor ? editorFen() : '') : S.mode === 'play' && S.game ? S.game.fen : '';
  const key = `${id}|${fen}`;
  if (key === tbKey) return;
  tbKey = key;
  if (!id || !fen) { el.hidden = true; return; }
  let r;
  try {
    r = await api('GET', `/api/tablebase?variant=${encodeURIComponent(id)}&fen=${encodeURIComponent(fen)}`, undefined, false);
  } catch (_) { r = null; }
  if (tbKey !== key) return;
  if (!r || !r.in_tables) { el.hidden = true; el.removeAttribute('data-value'); return; }
  el.hidden = false;
  el.setAttribute('data-value', r.value);
  const moves = (r.moves || []).map((m) => {
    const v = m.value === 'win' ? `wins in ${m.distance}` : m.value === 'loss' ? `loses in ${m.distance}` : m.value === 'draw' ? 'draw' : '?';
    return `<li data-move="${esc(m.move)}" data-value="${esc(m.value || '')}"><b>${esc(m.move)}</b> ${esc(v)}${m.cursed ? ' (cursed)' : ''}</li>`;
  }).join('');
  el.innerHTML = `<div class="tb-text" data-role="tb-text">${esc(r.text)}</div><ol class="tb-moves">${moves}</ol>`;
}

function renderBoard(anim) {
  renderTablebase();
  const el = $('#board');
  const detail = S.mode === 'editor' ? S.editor.detail : S.detail;
  if (!detail) {
    el.innerHTML = '';
    return;
  }
  const pieces = shownPieces();
  el.innerHTML = boardSvg(detail, {
    pieces,
    flipped: S.flipped,
    coords: prefs.coords,
    numbers: prefs.numbers,
    marks: currentMarks(),
    arrows: currentArrows(),
    prefix: 'mb',
  });
  el.classList.toggle('editing', S.mode === 'editor');
  if (anim) animateMove(detail, anim);
  syncBoardAttrs();
}

/** Slides the piece of the last move along its path; the captured pieces fade out. */
function animateMove(detail, { move, captured }) {
  const svg = $('#board svg');
  const pieceEl = svg && svg.querySelector(`.pieces [data-square="${CSS.escape(move.to)}"]`);
  if (!pieceEl || !pieceEl.animate) return;
  const stops = [move.from, ...move.path].map((n) => {
    const s = detail.byName.get(n);
    const { cx, cy } = cellOf(detail, s.x, s.y, S.flipped);
    return { transform: `translate(${cx}px,${cy}px)` };
  });
  const duration = Math.min(140 + 110 * (stops.length - 1), 700);
  pieceEl.animate(stops, { duration, easing: 'ease-in-out' });
  const layer = svg.querySelector('.pieces');
  captured.forEach((p, i) => {
    const s = detail.byName.get(p.square);
    if (!s) return;
    const { cx, cy } = cellOf(detail, s.x, s.y, S.flipped);
    const g = document.createElementNS('http://www.w3.org/2000/svg', 'g');
    g.setAttribute('class', 'pc ghost');
    g.style.transform = `translate(${cx}px,${cy}px)`;
    g.innerHTML = `<use href="#mb-${p.color}-${p.king ? 'king' : 'man'}"/>`;
    layer.insertBefore(g, layer.firstChild);
    const at = (duration * (i + 1)) / (captured.length + 1);
    const a = g.animate([{ opacity: 1 }, { opacity: 1, offset: at / (duration + 120) }, { opacity: 0 }], { duration: duration + 120, fill: 'forwards' });
    a.onfinish = () => g.remove();
  });
}

function syncBoardAttrs() {
  const el = $('#board');
  if (!el) return;
  const g = S.game;
  const set = (k, v) => el.setAttribute(`data-${k}`, v);
  set('mode', S.mode);
  set('game-id', S.mode === 'play' && g ? g.id : '');
  set('variant', (S.mode === 'editor' ? S.editor?.detail?.id : S.detail?.id) || '');
  set('fen', S.mode === 'play' && g ? g.fen : '');
  set('side-to-move', g ? g.side_to_move : '');
  set('ply', g ? g.history.length : 0);
  set('version', g ? versionOf(g) : '');
  set('redo', g ? g.redo : 0);
  set('human-to-move', humanToMove() ? 'true' : 'false');
  set('engine-thinking', engineBusy() ? 'true' : 'false');
  set('busy', S.pending > 0 || engineBusy() ? 'true' : 'false');
  set('outcome', g && g.outcome ? g.outcome.result : '');
  set('legal', JSON.stringify(S.mode === 'play' && g ? g.legal.map(({ full, notation, from, to, path, captures }) => ({ full, notation, from, to, path, captures })) : []));
  set('selected', S.sel || '');
  set('choosing', S.choosing ? 'true' : 'false');
  set('route-options', JSON.stringify(S.choosing ? routeOptions() : []));
  set('flipped', S.flipped ? 'true' : 'false');
  set('node', g && g.tree ? g.tree.current : 0);
  set('main-end', g && g.tree ? g.tree.main_end : 0);
  set('analysis', A.on ? 'on' : 'off');
  set('analysis-node', A.on && A.data ? A.data.node ?? '' : '');
  set('analysis-lines', A.on && A.data ? (A.data.lines || []).length : 0);
  syncControls();
}

/* ---------- choosing a piece, a destination, a route ---------- */

function remainingRoutes() {
  const c = S.choosing;
  if (!c) return [];
  return c.cands.filter((m) => c.prefix.every((s, i) => m.path[i] === s));
}

function routeOptions() {
  const c = S.choosing;
  if (!c) return [];
  const opts = new Set();
  for (const m of remainingRoutes()) if (m.path.length > c.prefix.length) opts.add(m.path[c.prefix.length]);
  return [...opts];
}

function select(sq) {
  S.sel = sq;
  S.choosing = null;
  renderBoard();
  renderRouteChoice();
}

function deselect() {
  if (!S.sel && !S.choosing) return;
  S.sel = null;
  S.choosing = null;
  renderBoard();
  renderRouteChoice();
}

function chooseDestination(to) {
  const cands = movesFrom(S.sel).filter((m) => m.to === to);
  if (!cands.length) return false;
  if (cands.length === 1) {
    submitMove(cands[0]);
    return true;
  }
  S.choosing = { from: S.sel, to, cands, prefix: [] };
  advanceRoute();
  return true;
}

/** A capture entered jump by jump: the first landing square of one or more multi-jump captures. */
function startStepwise(sq) {
  const cands = movesFrom(S.sel).filter((m) => m.path.length > 1 && m.path[0] === sq);
  if (!cands.length) return false;
  S.choosing = { from: S.sel, to: null, cands, prefix: [sq] };
  advanceRoute();
  return true;
}

/** Takes the landing squares every remaining route shares; plays the move once one is left. */
function advanceRoute() {
  const c = S.choosing;
  for (;;) {
    const rem = remainingRoutes();
    if (rem.length === 1) {
      submitMove(rem[0]);
      return;
    }
    const opts = routeOptions();
    const complete = rem.some((m) => m.path.length === c.prefix.length);
    if (opts.length === 1 && !complete) c.prefix.push(opts[0]);
    else break;
  }
  renderBoard();
  renderRouteChoice();
}

function clickRouteSquare(sq) {
  const c = S.choosing;
  if (routeOptions().includes(sq)) {
    c.prefix.push(sq);
    advanceRoute();
    return;
  }
  // A route whose path is exactly the chosen prefix ends here: clicking its end square picks it.
  const done = remainingRoutes().find((m) => m.path.length === c.prefix.length && m.to === sq);
  if (done) {
    submitMove(done);
    return;
  }
  // The final square of some remaining routes: keep those.
  const ending = remainingRoutes().filter((m) => m.to === sq);
  if (ending.length) {
    c.cands = ending;
    c.to = sq;
    advanceRoute();
    return;
  }
  deselect();
}

function renderRouteChoice() {
  const box = $('[data-role="route-choice"]');
  if (!S.choosing) {
    box.hidden = true;
    box.innerHTML = '';
    return;
  }
  const rem = remainingRoutes();
  box.hidden = false;
  const head = S.choosing.to
    ? `Several captures go from <b>${esc(S.choosing.from)}</b> to <b>${esc(S.choosing.to)}</b>: click the next landing square on the board, or pick one.`
    : `Capture from <b>${esc(S.choosing.from)}</b> over <b>${esc(S.choosing.prefix.join(', '))}</b>: click the next landing square, or pick one.`;
  box.innerHTML = `<div class="route-head">${head}</div>
    <div class="route-list">${rem
      .map((m) => `<button type="button" class="chip route-btn" data-action="pick-route" data-full="${esc(m.full)}">${esc(m.full)} <small>×${m.captures.length}</small></button>`)
      .join('')}<button type="button" class="chip ghost" data-action="cancel-route">Cancel</button></div>`;
}

function onSquare(sq) {
  if (S.mode === 'editor') {
    editorClick(sq);
    return;
  }
  if (!humanToMove()) return;
  if (S.choosing) {
    clickRouteSquare(sq);
    return;
  }
  if (S.sel) {
    if (movesFrom(S.sel).some((m) => m.to === sq)) {
      chooseDestination(sq);
      return;
    }
    if (sq === S.sel) {
      deselect();
      return;
    }
    if (startStepwise(sq)) return;
  }
  if (movesFrom(sq).length) {
    select(sq);
    return;
  }
  const g = S.game;
  const piece = g.pieces.find((p) => p.square === sq);
  if (piece && piece.color === g.side_to_move && g.must_capture?.length) {
    flashMust();
    toast(tr('toast.must_capture', { squares: g.must_capture.join(', ') }), 'info');
  }
  deselect();
}

function flashMust() {
  const el = $('#board');
  el.classList.remove('flash-must');
  void el.offsetWidth;
  el.classList.add('flash-must');
}

/* pointer handling: click, or press on a piece and drag it */

function squareAt(clientX, clientY) {
  const hit = document.elementFromPoint(clientX, clientY);
  const sq = hit && hit.closest && hit.closest('#board [data-square]');
  return sq && sq.tagName.toLowerCase() === 'rect' ? sq.getAttribute('data-square') : null;
}

function svgPoint(svg, clientX, clientY) {
  const pt = svg.createSVGPoint();
  pt.x = clientX;
  pt.y = clientY;
  return pt.matrixTransform(svg.getScreenCTM().inverse());
}

function installPointer() {
  const board = $('#board');
  board.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    const rect = e.target.closest && e.target.closest('rect[data-square]');
    if (!rect) return;
    const sq = rect.getAttribute('data-square');
    const draggable = S.mode === 'play' && humanToMove() && !S.choosing && movesFrom(sq).length > 0;
    const justSelected = draggable && S.sel !== sq;
    if (justSelected) select(sq);
    S.drag = { sq, x: e.clientX, y: e.clientY, draggable, justSelected, moving: false, ghost: null, id: e.pointerId };
    if (draggable) {
      try {
        board.setPointerCapture(e.pointerId);
      } catch { /* synthetic events */ }
    }
    e.preventDefault();
  });
  board.addEventListener('pointermove', (e) => {
    const d = S.drag;
    if (!d || !d.draggable || d.id !== e.pointerId) return;
    const svg = $('#board svg');
    if (!d.moving) {
      if (Math.hypot(e.clientX - d.x, e.clientY - d.y) < 6) return;
      d.moving = true;
      const pieceEl = svg.querySelector(`.pieces [data-square="${CSS.escape(d.sq)}"]`);
      if (!pieceEl) return;
      pieceEl.classList.add('lifted');
      d.ghost = pieceEl.cloneNode(true);
      d.ghost.removeAttribute('data-piece');
      d.ghost.removeAttribute('data-square');
      d.ghost.setAttribute('class', `${pieceEl.getAttribute('class')} dragging`);
      svg.appendChild(d.ghost);
    }
    if (d.ghost) {
      const p = svgPoint(svg, e.clientX, e.clientY);
      d.ghost.style.transform = `translate(${p.x - 50}px,${p.y - 50}px) scale(1.08)`;
    }
  });
  const finish = (e) => {
    const d = S.drag;
    if (!d || d.id !== e.pointerId) return;
    S.drag = null;
    if (d.moving) {
      if (d.ghost) d.ghost.remove();
      const target = squareAt(e.clientX, e.clientY);
      const lifted = $('#board .lifted');
      if (lifted) lifted.classList.remove('lifted');
      if (target && target !== d.sq && S.sel && movesFrom(S.sel).some((m) => m.to === target)) {
        S.animateNext = false;
        chooseDestination(target);
      }
      return;
    }
    if (e.type === 'pointercancel') return;
    const target = squareAt(e.clientX, e.clientY) || d.sq;
    if (target !== d.sq) return;
    if (d.justSelected) return;
    onSquare(d.sq);
  };
  board.addEventListener('pointerup', finish);
  board.addEventListener('pointercancel', finish);
  board.addEventListener('contextmenu', (e) => {
    if (S.mode === 'editor') e.preventDefault();
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && (S.sel || S.choosing) && !document.querySelector('dialog[open]')) deselect();
    navKey(e);
  });
}

/* ---------- game state ---------- */

/** A state's place among its game's changes (docs/api.md, `version`); -1 without one. */
function versionOf(state) {
  return typeof state?.version === 'number' ? state.version : -1;
}

/** Whether `state` is of the game shown and older than the state shown. States come by two
 * ways, the answers to the page's requests and the event stream (a connection of its own), so
 * the event of a change can arrive after the answer to a later request: the engine's reply
 * shown, then the event of the move it replies to. Showing that would take the board back and
 * set the engine thinking again on a position the server left. */
function olderThanShown(state) {
  const g = S.game;
  return !!g && !!state && state.id === g.id && versionOf(state) < versionOf(g);
}

function setGame(state, { animate = true } = {}) {
  if (olderThanShown(state)) return;
  const old = S.game;
  const sameGame = old && old.id === state.id;
  let anim = null;
  if (sameGame && animate && S.animateNext && state.history.length === old.history.length + 1) {
    const move = state.history[state.history.length - 1];
    const captured = move.captures.map((c) => old.pieces.find((p) => p.square === c)).filter(Boolean);
    anim = { move, captured };
    playSound(move.captures.length ? 'capture' : 'move', move.captures.length);
  }
  S.animateNext = true;
  if (!sameGame) {
    S.info = null;
    S.evalWhite = null;
    S.enginePaused = false;
    S.hint = null;
  } else if (old.fen !== state.fen && !S.keepInfo) {
    // The engine's lines and score were for another position (undo, redo, a move in the list).
    S.info = null;
    S.evalWhite = null;
  }
  S.game = state;
  S.mode = S.mode === 'editor' ? 'editor' : 'play';
  S.sel = null;
  S.choosing = null;
  if (S.mode !== 'editor') renderBoard(anim);
  renderRouteChoice();
  renderMoves();
  renderStatus();
  renderResult();
  renderEngine();
  if (!sameGame) connectEvents(state.id);
  document.dispatchEvent(new CustomEvent('damspel:game', { detail: state }));
  const want = `#/game/${state.id}`;
  if (location.hash !== want) history.replaceState(null, '', want);
  S.routeGame = state.id;
  maybeEngine();
  analysisFollow();
  syncBoardAttrs();
}

/* Black at the bottom when this browser plays Black: against the engine, or holding only Black's
 * seat in a game between people (so a friend's reload keeps their side). */
function seenAsBlack(state) {
  if (state.white === 'human' && state.black === 'human') {
    const held = seatsOf(state.id);
    return !!held.black && !held.white;
  }
  return state.white === 'engine' && state.black === 'human';
}

async function loadGame(id) {
  try {
    const state = await api('GET', `/api/games/${encodeURIComponent(id)}`);
    await showVariant(state.variant);
    S.flipped = seenAsBlack(state);
    if (S.mode === 'editor') exitEditor(false);
    setGame(state, { animate: false });
    return true;
  } catch (err) {
    toast(err.status === 404 ? tr('toast.gone') : `${tr('toast.load_failed')} ${err.message}`);
    return false;
  }
}

async function showVariant(id) {
  const d = await variantDetail(id);
  S.detail = d;
  showTitle(d);
  return d;
}

/** The header names the variant on the board (the editor's, while editing). */
function showTitle(d) {
  $('[data-role="variant-title"]').textContent = d.name;
  document.title = `${d.name} · Damspel`;
}

function maybeEngine() {
  const g = S.game;
  if (!g || S.mode !== 'play' || !g.engine_to_move || g.outcome || engineBusy() || S.enginePaused) return;
  runEngine();
}

async function runEngine() {
  const g = S.game;
  stopAnalysis();
  const mine = { kind: 'engine', gameId: g.id, side: g.side_to_move };
  S.engine = mine;
  S.info = null;
  S.hint = null;
  renderEngine();
  renderStatus();
  syncBoardAttrs();
  try {
    const state = await api('POST', `/api/games/${encodeURIComponent(g.id)}/engine`, { time: g.engine_time }, false);
    if (S.engine === mine) S.engine = null;
    // The search's score stays shown: the engine's move is the first of its line.
    S.keepInfo = true;
    try {
      if (S.game && state.id === S.game.id) setGame(state);
    } finally {
      S.keepInfo = false;
    }
  } catch (err) {
    if (S.engine === mine) S.engine = null;
    if (S.game && S.game.id === g.id) {
      S.enginePaused = true;
      toast(err.status === 403
        ? 'You are watching this game: only its players can make the engine move.'
        : `The engine could not move: ${err.message}`);
      refreshGame();
    }
  } finally {
    if (S.engine === mine) S.engine = null;
    renderEngine();
    renderStatus();
    syncBoardAttrs();
    catchUpSoon();
  }
}

async function refreshGame() {
  if (!S.game) return;
  try {
    setGame(await api('GET', `/api/games/${encodeURIComponent(S.game.id)}`), { animate: false });
  } catch { /* shown elsewhere */ }
}

async function submitMove(move) {
  const g = S.game;
  S.sel = null;
  S.choosing = null;
  S.hint = null;
  S.enginePaused = false;
  renderRouteChoice();
  renderBoard();
  // A shared game goes on only at its last move (the view may be elsewhere).
  if (localView(g) && g.tree && g.tree.current !== g.tree.main_end) {
    toast('This game is shared: go to its last move to play (End).');
    renderBoard();
    return;
  }
  try {
    const body = localView(g) && g.tree ? { move: move.full, from: g.tree.current } : { move: move.full };
    const state = await api('POST', `/api/games/${encodeURIComponent(g.id)}/move`, body);
    if (S.game && state.id === S.game.id) setGame(state);
  } catch (err) {
    S.animateNext = true;
    toast(`Move ${move.notation}: ${err.message}`);
    refreshGame();
  }
}

async function undo() {
  const g = S.game;
  if (!g || engineBusy() || !g.history.length) return;
  if (localView(g)) return gotoNode(g.tree.nodes[g.tree.current].parent);
  const vsEngine = (g.white === 'engine') !== (g.black === 'engine');
  try {
    let state = await api('POST', `/api/games/${encodeURIComponent(g.id)}/undo`);
    // Against the engine, take back its reply too so that it is the player's turn again.
    if (vsEngine && state[state.side_to_move] === 'engine' && state.history.length) {
      state = await api('POST', `/api/games/${encodeURIComponent(g.id)}/undo`);
    }
    S.enginePaused = state.engine_to_move;
    setGame(state, { animate: false });
  } catch (err) {
    toast(`Undo: ${err.message}`);
  }
}

async function redo() {
  const g = S.game;
  if (!g || engineBusy() || !g.redo) return;
  if (localView(g)) return gotoNode(g.tree.nodes[g.tree.current].children[0]);
  try {
    const state = await api('POST', `/api/games/${encodeURIComponent(g.id)}/redo`);
    // The engine waits while there are still moves to redo; it resumes once none are left.
    S.enginePaused = state.engine_to_move && state.redo > 0;
    setGame(state);
  } catch (err) {
    toast(`Redo: ${err.message}`);
  }
}

async function hint() {
  const g = S.game;
  if (!g || g.outcome || engineBusy() || !g.legal.length) return;
  const mine = { kind: 'hint', gameId: g.id, side: g.side_to_move };
  S.engine = mine;
  S.info = null;
  renderEngine();
  syncBoardAttrs();
  try {
    const time = Math.min(Math.max(g.engine_time || 1, 0.5), 10);
    // The node shown: between two players the page's view is its own (the server's may be
    // the other player's variation).
    const h = await api('POST', `/api/games/${encodeURIComponent(g.id)}/hint`, { time, node: g.tree.current }, false);
    if (S.engine === mine) S.engine = null;
    if (!S.game || S.game.id !== g.id) return;
    const m = S.game.legal.find((l) => l.full === h.full) || S.game.legal.find((l) => l.notation === h.move);
    S.hint = { gameId: g.id, fen: S.game.fen, move: h.move, full: h.full, score: h.score, pv: h.pv || [], from: m?.from, path: m?.path || [] };
    if (h.score) S.evalWhite = toWhite(h.score, g.side_to_move);
    renderBoard();
  } catch (err) {
    if (S.game && S.game.id === g.id) toast(`Hint: ${err.message}`);
  } finally {
    if (S.engine === mine) S.engine = null;
    renderEngine();
    syncBoardAttrs();
    catchUpSoon();
  }
}

/* ---------- engine progress (server-sent events) ---------- */

function connectEvents(id) {
  if (S.es) S.es.close();
  S.esGame = id;
  S.held = null;
  if (!window.EventSource) return;
  const path = `/api/games/${encodeURIComponent(id)}/events`;
  // The seats this browser holds go to the stream in a cookie for its path alone (an
  // EventSource sends no header): between two players each one's hints and analysis reach
  // that one only (docs/api.md).
  const held = seatSecrets(id);
  document.cookie = held.length
    ? `damspel_seat=${held.join('.')}; path=${path}; SameSite=Strict`
    : `damspel_seat=; path=${path}; max-age=0; SameSite=Strict`;
  const es = new EventSource(path);
  S.es = es;
  es.addEventListener('info', (e) => {
    if (S.esGame !== id) return;
    let info;
    try {
      info = JSON.parse(e.data);
    } catch {
      return;
    }
    if (analysisInfo(info)) return;
    // Another position's search (a hint or an analysis left behind) is not shown.
    if (!engineBusy() && S.game && info.node !== undefined && info.node !== S.game.tree?.current) return;
    S.info = info;
    if (info.score && S.game) S.evalWhite = toWhite(info.score, (engineBusy() && S.engine.side) || S.game.side_to_move);
    renderEngine();
  });
  es.addEventListener('state', (e) => {
    if (S.esGame !== id || !S.game || S.game.id !== id) return;
    let st;
    try {
      st = JSON.parse(e.data);
    } catch {
      return;
    }
    if (st.id !== id || versionOf(st) <= versionOf(S.game)) return; // late, or shown already
    if (S.pending > 0 || engineBusy()) {
      // Our own request's answer will follow; this is shown after it if it is still newer (a
      // change made elsewhere meanwhile, which the answer may not have).
      if (versionOf(st) > versionOf(S.held)) S.held = st;
      return;
    }
    showEvent(st);
  });
}

/** Shows a newer state of the game shown that came by the event stream (another tab, a friend,
 * a flag fall). */
function showEvent(st) {
  const id = st.id;
  // Looking at the past of a shared game: stay there, with the news (a view of the same node).
  const t = S.game.tree;
  if (localView() && t && t.current !== t.main_end && st.tree && st.tree.nodes[t.current]) {
    api('GET', `/api/games/${encodeURIComponent(id)}?node=${t.current}`, undefined, false)
      .then((v) => { if (S.game && S.game.id === id && S.game.tree.current === t.current) setGame(v, { animate: false }); })
      .catch(() => {});
    return;
  }
  // At the last move of a shared game: stay at the last move, wherever the other player's
  // analysis took the game's shown node (a variation they played).
  if (localView() && st.tree && st.tree.current !== st.tree.main_end) {
    const end = st.tree.main_end;
    api('GET', `/api/games/${encodeURIComponent(id)}?node=${end}`, undefined, false)
      .then((v) => { if (S.game && S.game.id === id) setGame(v, { animate: false }); })
      .catch(() => {});
    return;
  }
  // (friend.js: a resignation, a draw offer or a clock changes no move but must show.)
  const same = (k) => JSON.stringify(st[k]) === JSON.stringify(S.game[k]);
  if (st.fen === S.game.fen && st.history.length === S.game.history.length && st.redo === S.game.redo && same('tree') && same('outcome') && same('draw_offer') && same('clock') && same('invite_open')) return;
  setGame(st); // changed elsewhere (another tab)
}

/** Once the page's own request has been answered (and its answer shown: that runs first, before
 * a timer's turn), shows the event held meanwhile if it is newer than what is shown. */
function catchUpSoon() {
  if (!S.held) return;
  setTimeout(() => {
    const st = S.held;
    if (!st || S.pending > 0 || engineBusy()) return;
    S.held = null;
    if (S.game && S.game.id === st.id && S.esGame === st.id && versionOf(st) > versionOf(S.game)) showEvent(st);
  }, 0);
}

function toWhite(score, side) {
  const flip = side === 'black';
  if (score.win_in !== undefined) return flip ? { loss: score.win_in } : { win: score.win_in };
  if (score.loss_in !== undefined) return flip ? { win: score.loss_in } : { loss: score.loss_in };
  const men = Number(score.men ?? 0);
  return { men: flip ? -men : men };
}

function scoreText(s) {
  if (!s) return '–';
  if (s.win !== undefined) return tr('engine.white_wins_in', { n: Math.ceil(s.win / 2) });
  if (s.loss !== undefined) return tr('engine.black_wins_in', { n: Math.ceil(s.loss / 2) });
  const v = s.men;
  return `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v).toFixed(2)}`;
}

function scoreShort(s) {
  if (!s) return '0.0';
  if (s.win !== undefined) return `#${Math.ceil(s.win / 2)}`;
  if (s.loss !== undefined) return `#${Math.ceil(s.loss / 2)}`;
  const v = s.men;
  return `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v) >= 10 ? Math.abs(v).toFixed(0) : Math.abs(v).toFixed(1)}`;
}

function whiteFraction(s) {
  if (!s) return 0.5;
  if (s.win !== undefined) return 1;
  if (s.loss !== undefined) return 0;
  return 0.5 + 0.5 * Math.tanh(s.men / 2.5);
}

function fmtNodes(n) {
  if (n === undefined || n === null) return '–';
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

function renderEngine() {
  const st = $('[data-role="engine-state"]');
  const card = $('[data-role="engine"]');
  const thinking = engineBusy();
  card.classList.toggle('thinking', thinking);
  st.textContent = tr(thinking ? (S.engine.kind === 'hint' ? 'engine.hinting' : 'engine.thinking') : S.game && S.game.outcome ? 'engine.over' : 'engine.idle');
  const info = S.info;
  $('[data-role="engine-depth"]').textContent = info?.depth ?? '–';
  $('[data-role="engine-nodes"]').textContent = fmtNodes(info?.nodes);
  $('[data-role="engine-score"]').textContent = scoreText(S.evalWhite);
  $('[data-role="engine-pv"]').innerHTML = (info?.pv || [])
    .slice(0, 14)
    .map((m, i) => `<span class="pv-move${i === 0 ? ' first' : ''}">${esc(m)}</span>`)
    .join(' ');
  const hintEl = $('[data-role="hint"]');
  if (S.hint && S.game && S.hint.gameId === S.game.id && S.hint.fen === S.game.fen) {
    hintEl.hidden = false;
    hintEl.innerHTML = `${esc(tr('engine.hint'))} <b>${esc(S.hint.move)}</b>${S.hint.score ? ` <span class="muted">(${esc(scoreText(toWhite(S.hint.score, S.game.side_to_move)))})</span>` : ''}`;
  } else {
    hintEl.hidden = true;
  }
  // evaluation bar
  const bar = $('[data-role="evalbar"]');
  const frac = whiteFraction(S.evalWhite);
  bar.setAttribute('data-score', S.evalWhite ? scoreShort(S.evalWhite) : '');
  bar.classList.toggle('flipped', S.flipped);
  $('[data-role="evalbar-fill"]').style.setProperty('--white', `${(frac * 100).toFixed(1)}%`);
  $('[data-role="evalbar-text"]').textContent = scoreShort(S.evalWhite);
  bar.classList.toggle('white-ahead', frac >= 0.5);
}

/* ---------- move list, status, result ---------- */

function renderMoves() {
  const ol = $('[data-role="movelist"]');
  const g = S.game;
  renderGameInfo();
  if (!g || S.mode !== 'play') {
    ol.innerHTML = `<li class="empty muted">${esc(tr('moves.none'))}</li>`;
    return;
  }
  const t = g.tree;
  if (!t || t.nodes.length < 2) {
    ol.innerHTML = `<li class="empty muted">${esc(tr('moves.none_side', { side: sideName(g.side_to_move) }))}</li>`;
    return;
  }
  ol.innerHTML = moveTreeHtml(g) + (g.outcome && t.current === t.main_end ? `<li class="res"><span class="no"></span><span class="mv result">${esc(g.outcome.result)}</span></li>` : '');
  const cur = ol.querySelector('.mv.current');
  const box = ol.parentElement;
  if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: 'nearest' });
  else if (t.current === t.main_end) {
    box.scrollTop = box.scrollHeight;
    ol.scrollTop = ol.scrollHeight;
  }
}

function playerLabel(g, side) {
  const named = tagOf(g, side === 'white' ? 'White' : 'Black');
  if (named) return named;
  return g[side] === 'engine' ? tr('player.engine') : (g.white === 'human' && g.black === 'human' ? sideName(side) : tr('player.you'));
}

/** "White" / "Black" in the page's language. */
function sideName(side) {
  return tr(side === 'black' ? 'side.black' : 'side.white');
}
function toMove(side) {
  return tr('status.to_move', { side: sideName(side) });
}

function renderStatus() {
  const el = $('[data-role="status"]');
  const g = S.game;
  if (S.mode === 'editor') {
    el.innerHTML = `<span class="muted">${esc(tr('status.editing'))}</span>`;
    return;
  }
  if (!g) {
    el.innerHTML = `<span class="muted">${esc(tr('status.choose'))}</span>`;
    return;
  }
  const side = g.side_to_move;
  const who = playerLabel(g, side);
  let text;
  if (g.outcome) text = `<b>${esc(g.outcome.result)}</b> · ${esc(g.outcome.reason)}`;
  else if (engineBusy() && S.engine.kind === 'engine') text = `<span class="dot ${side}"></span>${esc(toMove(side))} · ${esc(tr('status.engine_thinking'))}<span class="dots"></span>`;
  else if (g.engine_to_move) text = `<span class="dot ${side}"></span>${esc(toMove(side))} · ${esc(tr('status.engine'))}${S.enginePaused ? ` ${esc(tr('status.paused'))}` : ''}`;
  else text = `<span class="dot ${side}"></span>${esc(toMove(side))}${who === tr('player.you') ? ` · ${esc(tr('status.your_turn'))}` : ''}${g.must_capture?.length ? ` · <span class="must-note">${esc(tr('status.capture'))}</span>` : ''}`;
  el.setAttribute('data-side', side);
  el.innerHTML = `<span class="players"><span class="dot white"></span>${esc(playerLabel(g, 'white'))} <span class="vs">–</span> <span class="dot black"></span>${esc(playerLabel(g, 'black'))}</span><span class="turn">${text}</span>`;
}

function renderResult() {
  const el = $('[data-role="result"]');
  const g = S.game;
  if (!g || !g.outcome || S.mode !== 'play') {
    el.hidden = true;
    el.removeAttribute('data-result');
    return;
  }
  const o = g.outcome;
  const you = g.white === 'human' && g.black === 'engine' ? 'white' : g.black === 'human' && g.white === 'engine' ? 'black' : null;
  let headline = o.winner ? tr('result.wins', { side: sideName(o.winner) }) : tr('result.draw');
  if (you && o.winner) headline = o.winner === you ? tr('result.you_win') : tr('result.engine_wins');
  el.hidden = false;
  el.setAttribute('data-result', o.result);
  el.innerHTML = `<div class="result-score">${esc(o.result)}</div><div class="result-text"><b>${esc(headline)}</b><span>${esc(o.reason)}</span></div>
    <div class="row"><button type="button" class="btn primary" data-action="rematch">${esc(tr('result.again'))}</button><button type="button" class="btn" data-action="new-game">${esc(tr('nav.new_game'))}</button></div>`;
}

function syncControls() {
  const g = S.game;
  const playing = S.mode === 'play' && !!g;
  const idle = !engineBusy() && S.pending === 0;
  const dis = (a, d) => $$(`[data-action="${a}"]`).forEach((b) => (b.disabled = d));
  dis('undo', !(playing && idle && g.history.length));
  dis('redo', !(playing && idle && g.redo));
  dis('hint', !(playing && idle && !g.outcome && g.legal.length && g[g.side_to_move] === 'human'));
  const ep = $('[data-action="engine-play"]');
  if (ep) {
    ep.hidden = !(playing && g.engine_to_move && S.enginePaused && !g.outcome);
    ep.disabled = !idle;
  }
  dis('share', !playing);
  const t = playing ? g.tree : null;
  const mm = $('[data-action="make-main"]');
  if (mm) mm.hidden = !(t && t.current !== 0 && t.current !== t.main_end && !isMainNode(t, t.current));
  const dv = $('[data-action="delete-variation"]');
  if (dv) dv.hidden = !(t && t.current !== 0 && !isMainNode(t, t.current));
  dis('nav-start', !(t && t.current !== 0));
  dis('nav-back', !(t && t.current !== 0));
  dis('nav-forward', !(t && t.nodes[t.current].children.length));
  dis('nav-end', !(t && t.nodes[t.current].children.length));
}

/* ---------- dialogs ---------- */

function openDialog(name) {
  const d = $(`[data-dialog="${name}"]`);
  if (!d.open) d.showModal();
  // Keep the messages above the dialog just opened.
  const box = $('[data-role="toasts"]');
  if (box.showPopover && box.matches(':popover-open') && box.childElementCount) {
    box.hidePopover();
    box.showPopover();
  }
  return d;
}
function closeDialogs() {
  $$('dialog[open]').forEach((d) => d.close());
}

/* new game */

function familyName(id) {
  return S.families.find((f) => f.id === id)?.name || id;
}

function renderVariantList() {
  const list = $('[data-role="variant-list"]');
  const q = ($('[data-field="variant-filter"]').value || '').trim().toLowerCase();
  const fams = [...S.families.map((f) => f.id)];
  for (const v of S.variants) if (!fams.includes(v.family)) fams.push(v.family);
  const item = (v) => {
    const b = v.board || {};
    const note = variantNote(v.id);
    return `<button type="button" class="variant-item${S.pick === v.id ? ' is-picked' : ''}" data-variant="${esc(v.id)}">
        <span class="vi-name">${esc(v.name)}</span>
        <span class="vi-board">${b.width}×${b.height}${b.squares === 'dark' ? ` ${esc(tr('picker.dark_short'))}` : ''}</span>
        ${note ? `<span class="vi-note" data-role="variant-note">${esc(note)}</span>` : ''}
        <span class="vi-desc">${esc(v.description)}</span></button>`;
  };
  let html = '';
  // The most played variants first, then all of them by family (a search shows only the latter,
  // so that each match is listed once).
  if (!q) {
    const pop = POPULAR.map((id) => S.variants.find((v) => v.id === id)).filter(Boolean);
    if (pop.length) {
      html += `<div class="family popular" data-family="popular"><div class="family-head"><b>${esc(tr('picker.popular'))}</b><span>${esc(tr('picker.popular_note'))}</span></div>`;
      html += pop.map(item).join('') + '</div>';
    }
  }
  for (const fid of fams) {
    const vs = S.variants.filter(
      (v) => v.family === fid && (!q || `${v.id} ${v.name} ${v.description} ${(v.aliases || []).join(' ')}`.toLowerCase().includes(q))
    );
    if (!vs.length) continue;
    const [title, ...rest] = familyName(fid).split(':');
    html += `<div class="family" data-family="${esc(fid)}"><div class="family-head"><b>${esc(title)}</b>${rest.length ? `<span>${esc(rest.join(':').trim())}</span>` : ''}</div>`;
    html += vs.map(item).join('');
    html += '</div>';
  }
  list.innerHTML = html || `<p class="muted">${esc(tr('picker.none'))}</p>`;
}

function rulesHtml(d) {
  // The Sources section holds the rule book's internal notes (block, seed, files): not for players.
  const sections = (d.rules?.sections || [])
    .filter((s) => s.title !== 'Sources')
    .map((s) => `<section><h4>${esc(s.title)}</h4><ul>${(s.lines || []).map((l) => `<li>${esc(l)}</li>`).join('')}</ul></section>`)
    .join('');
  const rows = Array.isArray(d.rules?.diagram) ? d.rules.diagram : String(d.rules?.diagram || '').split('\n');
  // rows of an all-squares board come without spaces: space them like the dark boards' rows
  const diagram = rows.map((r) => (/\s/.test(r) ? r : r.split('').join(' '))).join('\n').replace(/^\n+|\n+$/g, '');
  return `${diagram ? `<pre class="diagram">${esc(diagram)}</pre>` : ''}${sections}`;
}

function startPieces(d) {
  try {
    return piecesFromMap(d, parseFen(d, d.start_fen).pieces);
  } catch {
    return [];
  }
}

async function pickVariant(id) {
  S.pick = id;
  $$('[data-variant]', $('[data-role="variant-list"]')).forEach((b) => b.classList.toggle('is-picked', b.getAttribute('data-variant') === id));
  const info = $('[data-role="picked-info"]');
  info.setAttribute('data-picked', id);
  try {
    const d = await variantDetail(id);
    if (S.pick !== id) return;
    const b = d.board;
    info.innerHTML = `<div class="picked-top">
        <div class="mini">${boardSvg(d, { pieces: startPieces(d), coords: false, prefix: 'pv' })}</div>
        <div><h3>${esc(d.name)}</h3>
        <div class="muted small">${esc(familyName(d.family).split(':')[0])} · ${b.width}×${b.height}, ${esc(tr(b.squares === 'dark' ? 'picker.dark' : 'picker.all'))}${d.aliases?.length ? ` · ${esc(tr('picker.also', { names: d.aliases.join(', ') }))}` : ''}</div>
        ${variantNote(d.id) ? `<p class="picked-note" data-role="variant-note">${esc(variantNote(d.id))}</p>` : ''}
        <p>${esc(d.description)}</p></div></div>
      <details class="rules-details"><summary>${esc(tr('picker.full_rules'))}</summary><div class="rules">${rulesHtml(d)}</div></details>`;
  } catch (err) {
    info.textContent = err.message;
  }
}

function syncNewGameForm() {
  const engine = $('[data-opponent="engine"]').checked;
  $('[data-role="color-choice"]').disabled = !engine;
  $('[data-role="strength"]').disabled = !engine;
  $('[data-role="color-choice"]').classList.toggle('off', !engine);
  $('[data-role="strength"]').classList.toggle('off', !engine);
  $('[data-role="level"]').disabled = !engine;
  const t = parseFloat($('[data-field="engine-time"]').value);
  $$('[data-time]').forEach((c) => c.classList.toggle('on', parseFloat(c.getAttribute('data-time')) === t));
}

function openNewGame() {
  const st = S.settings;
  $('[data-field="variant-filter"]').value = '';
  S.pick = S.game?.variant || S.detail?.id || st.variant;
  renderVariantList();
  $(`[data-opponent="${st.opponent === 'human' ? 'human' : 'engine'}"]`).checked = true;
  const col = $(`[data-color="${st.color}"]`) || $('[data-color="white"]');
  col.checked = true;
  $('[data-field="engine-time"]').value = st.time;
  $('[data-field="engine-level"]').value = String(st.level || 8);
  $('[data-field="clock-minutes"]').value = String(st.clock?.minutes || 0);
  $('[data-field="clock-increment"]').value = String(st.clock?.increment || 0);
  syncNewGameForm();
  openDialog('new-game');
  pickVariant(S.pick);
  const picked = $('[data-role="variant-list"] .is-picked');
  if (picked) picked.scrollIntoView({ block: 'center' });
}

async function startGame(opts) {
  const { variant, opponent, color, time, fen, level, clock } = opts;
  let white = 'human';
  let black = 'human';
  let side = color;
  if (opponent === 'engine') {
    if (side === 'random') side = Math.random() < 0.5 ? 'white' : 'black';
    if (side === 'white') black = 'engine';
    else white = 'engine';
  }
  const t = Math.min(Math.max(Number(time) || 1, 0.01), 10);
  const lv = Math.min(Math.max(Math.round(Number(level)) || 8, 1), 8);
  const body = { variant, fen: fen || null, white, black, engine_time: t, level: lv };
  // A clock for people and engine alike (the engine then thinks for a share of its time).
  if (clock && clock.minutes > 0) body.clock = { minutes: clock.minutes, increment: clock.increment || 0 };
  const state = await api('POST', '/api/games', body);
  await showVariant(state.variant);
  S.flipped = white === 'engine' && black === 'human';
  if (S.mode === 'editor') exitEditor(false);
  S.game = null; // a new game: no animation from the previous one
  setGame(state, { animate: false });
  return state;
}

async function startFromDialog() {
  // A search may hide the variant picked before it: Play starts what the list shows (the only
  // match of the search), never a hidden variant.
  const shown = $$('[data-role="variant-list"] [data-variant]').map((b) => b.getAttribute('data-variant'));
  if (S.pick && !shown.includes(S.pick)) S.pick = shown.length === 1 ? shown[0] : null;
  const variant = S.pick;
  if (!variant) {
    toast(shown.length ? 'Pick one of the variants shown first.' : 'No variant matches the search.', 'info');
    return;
  }
  const opponent = $('[data-opponent="engine"]').checked ? 'engine' : 'human';
  const color = $('[data-color="black"]').checked ? 'black' : $('[data-color="random"]').checked ? 'random' : 'white';
  const time = parseFloat($('[data-field="engine-time"]').value) || 1;
  const level = Number($('[data-field="engine-level"]').value) || 8;
  const clock = {
    minutes: Math.max(0, parseFloat($('[data-field="clock-minutes"]').value) || 0),
    increment: Math.max(0, parseFloat($('[data-field="clock-increment"]').value) || 0),
  };
  S.settings = { ...S.settings, variant, opponent, color, time, level, clock };
  saveSettings();
  try {
    closeDialogs();
    await startGame({ variant, opponent, color, time, level, clock });
  } catch (err) {
    toast(`Could not start the game: ${err.message}`);
  }
}

async function rematch() {
  const g = S.game;
  if (!g) return;
  const opponent = g.white === 'engine' || g.black === 'engine' ? 'engine' : 'human';
  const color = g.white === 'human' ? 'white' : 'black';
  const fen = g.start_fen !== S.detail?.start_fen ? g.start_fen : null;
  try {
    const clock = g.clock ? { minutes: g.clock.initial_ms / 60000, increment: g.clock.increment_ms / 1000 } : null;
    await startGame({ variant: g.variant, opponent, color, time: g.engine_time, fen, level: g.level, clock });
  } catch (err) {
    toast(err.message);
  }
}

/* rules */

async function openRules() {
  const id = S.mode === 'editor' ? S.editor.detail.id : S.detail?.id;
  if (!id) return;
  const d = await variantDetail(id);
  $('[data-role="rules-title"]').textContent = d.name;
  $('[data-role="rules-body"]').innerHTML = `<p class="lead">${esc(d.description)}</p>${rulesHtml(d)}`;
  openDialog('rules');
}

/* FEN / PDN */

function variantOptions(selected) {
  const fams = [...S.families.map((f) => f.id)];
  for (const v of S.variants) if (!fams.includes(v.family)) fams.push(v.family);
  return fams
    .map((fid) => {
      const vs = S.variants.filter((v) => v.family === fid);
      if (!vs.length) return '';
      return `<optgroup label="${esc(familyName(fid).split(':')[0])}">${vs
        .map((v) => `<option value="${esc(v.id)}"${v.id === selected ? ' selected' : ''}>${esc(v.name)}</option>`)
        .join('')}</optgroup>`;
    })
    .join('');
}

function openShare() {
  const g = S.game;
  if (!g) return;
  $('[data-field="fen-out"]').value = g.fen;
  const a = $('[data-action="download-pdn"]');
  a.href = `/api/games/${encodeURIComponent(g.id)}/pdn`;
  a.setAttribute('download', `damspel-${g.variant}-${g.id}.pdn`);
  // A PDN file says its variant (or the moves do): the page's variant is only a fallback.
  $('[data-field="import-variant"]').innerHTML =
    '<option value="">From the file (PDN), else ask</option>' + variantOptions('');
  S.importFile = null;
  $('[data-field="import-file"]').value = '';
  hideImportGames();
  openDialog('share');
}

async function copyText(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    toast(`${what} copied.`, 'ok');
  } catch {
    toast(`Select the ${what} and copy it by hand.`, 'info');
  }
}

function hideImportGames() {
  const box = $('[data-role="import-games"]');
  box.hidden = true;
  box.innerHTML = '';
}

/* The bytes of a file in base64, so the server can detect its encoding (CP1251, Latin-1). */
function toBase64(buffer) {
  const bytes = new Uint8Array(buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

async function importFileChosen(e) {
  const file = e.target.files && e.target.files[0];
  hideImportGames();
  S.importFile = null;
  if (!file) return;
  S.importFile = { pdn_base64: toBase64(await file.arrayBuffer()), name: file.name };
  $('[data-field="import-text"]').value = '';
  await importGame();
}

/* The games of a PDN file, one row each: the good ones can be opened, the bad ones say why. */
function showImportGames(listing, source) {
  const box = $('[data-role="import-games"]');
  const vname = (id) => S.variants.find((v) => v.id === id)?.name || id;
  const rows = listing.games
    .map((g) => {
      const who = `${g.white || '?'} – ${g.black || '?'}`;
      const meta = [g.event, g.date, g.result, `${g.plies} ${g.plies === 1 ? 'ply' : 'plies'}`]
        .filter(Boolean)
        .map(esc)
        .join(' · ');
      // An inferred variant says why, and which others replay the game too (the import
      // dialog's variant choice opens it as one of them).
      const variant = g.variant
        ? `<span title="${esc(g.decision || '')}">${esc(vname(g.variant))} <span class="muted small">(${esc(g.how)}${
            g.candidates && g.candidates.length > 1 ? `; also ${esc(g.candidates.slice(1).map(vname).join(', '))}` : ''
          })</span></span>`
        : '';
      const action = g.error
        ? `<span class="small error">${esc(g.error)}</span>`
        : `<button type="button" class="btn" data-action="import-game" data-number="${g.number}">Open</button>`;
      return `<li><div class="g-main"><b>${g.number}. ${esc(who)}</b> ${variant}
        <span class="muted small">${meta}</span></div><div class="g-actions">${action}</div></li>`;
    })
    .join('');
  const stopped = listing.stopped ? `<p class="small error">${esc(listing.stopped)}</p>` : '';
  box.innerHTML = `<p class="small">${listing.games.length} games in ${esc(source)}:</p>${stopped}<ul class="game-rows">${rows}</ul>`;
  box.hidden = false;
}

/* What the import sends as the PDN: the chosen file's bytes, or the pasted text. */
function importSource() {
  if (S.importFile) return { body: { pdn_base64: S.importFile.pdn_base64 }, name: S.importFile.name };
  const text = $('[data-field="import-text"]').value.trim();
  if (!text) return null;
  const isFen = /^[WB]\s*:/i.test(text) && !text.includes('[') && !/\d\.\s/.test(text);
  // Pasted text goes as base64, as a file does: as a JSON string, a game's own export whose
  // comments hold control characters (six bytes each in JSON) could pass the 1 MiB body.
  const body = isFen ? { fen: text } : { pdn_base64: toBase64(new TextEncoder().encode(text)) };
  return { body, name: 'the text', isFen };
}

async function importGame(number) {
  const variant = $('[data-field="import-variant"]').value;
  const source = importSource();
  if (!source) {
    toast('Choose a PDN file, or paste a FEN or a PDN game first.', 'info');
    return;
  }
  if (source.isFen && !variant) {
    toast('Choose the variant of this FEN.', 'info');
    return;
  }
  try {
    // A file of several games: list them and let the player choose one.
    if (!source.isFen && number === undefined) {
      const listing = await api('POST', '/api/pdn', { ...source.body, ...(variant ? { variant } : {}) });
      if (listing.games.length !== 1) {
        showImportGames(listing, source.name);
        return;
      }
      number = listing.games[0].number;
    }
    const [white, black] = ($('[data-field="import-players"]').value || 'human-human').split('-');
    const engine_time = Math.min(Math.max(Number(S.settings.time) || 1, 0.01), 10);
    const body = {
      white,
      black,
      engine_time,
      ...source.body,
      ...(variant ? { variant } : {}),
      ...(number !== undefined ? { game: number } : {}),
    };
    const state = await api('POST', '/api/games/import', body);
    closeDialogs();
    $('[data-field="import-text"]').value = '';
    $('[data-field="import-file"]').value = '';
    S.importFile = null;
    hideImportGames();
    await showVariant(state.variant);
    S.flipped = seenAsBlack(state);
    S.game = null;
    if (S.mode === 'editor') exitEditor(false);
    setGame(state, { animate: false });
    // A recorded game opens at its start, to be stepped through.
    if (state.history.length) await gotoNode(0);
    const notes = (state.claims || []).map((c) => `a draw could be claimed after ply ${c.ply} (${c.reason})`);
    if (state.result_recorded) notes.push(state.result_recorded.reason);
    toast(notes.length ? `${tr('toast.imported')} ${notes.join('; ')}.` : tr('toast.imported'), 'ok');
  } catch (err) {
    toast(`Import: ${err.message}`);
  }
}

/* past games */

async function openGames() {
  const box = $('[data-role="games-list"]');
  box.innerHTML = '<p class="muted">Loading…</p>';
  openDialog('games');
  try {
    const games = await api('GET', '/api/games');
    if (!games.length) {
      box.innerHTML = '<p class="muted">No games yet.</p>';
      return;
    }
    const vname = (id) => S.variants.find((v) => v.id === id)?.name || id;
    const who = (p) => (p === 'engine' ? 'Engine' : 'Human');
    box.innerHTML = `<ul class="game-rows">${games
      .map((g) => {
        const when = g.updated ? new Date(g.updated) : null;
        const whenText = when && !isNaN(when) ? when.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '';
        return `<li data-game="${esc(g.id)}"${S.game?.id === g.id ? ' class="current"' : ''}>
          <div class="g-main"><b>${esc(vname(g.variant))}</b>
            <span class="muted small">${esc(who(g.white))} – ${esc(who(g.black))} · ${g.moves} ${g.moves === 1 ? 'ply' : 'plies'} · ${esc(whenText)}</span>
            ${g.result ? `<span class="small">${esc(g.result)} · ${esc(g.reason || '')}</span>` : '<span class="small live">in progress</span>'}</div>
          <div class="g-actions"><button type="button" class="btn" data-action="resume" data-game="${esc(g.id)}">Open</button>
          <a class="btn ghost" data-action="game-pdn" href="/api/games/${encodeURIComponent(g.id)}/pdn" download="damspel-${esc(g.variant)}-${esc(g.id)}.pdn">PDN</a></div></li>`;
      })
      .join('')}</ul>`;
  } catch (err) {
    box.innerHTML = `<p class="error">${esc(err.message)}</p>`;
  }
}

/* ---------- position editor ---------- */

async function enterEditor() {
  const id = S.detail?.id || S.settings.variant;
  const d = await variantDetail(id);
  let pieces = new Map();
  let side = 'W';
  try {
    const src = S.game && S.mode === 'play' ? S.game.fen : d.start_fen;
    const p = parseFen(d, src);
    pieces = p.pieces;
    side = p.side === 'white' ? 'W' : 'B';
  } catch { /* empty */ }
  S.editor = { detail: d, pieces, side, tool: S.editor?.tool || 'white-man' };
  S.mode = 'editor';
  S.sel = null;
  S.choosing = null;
  $('[data-field="editor-variant"]').innerHTML = variantOptions(d.id);
  $('[data-role="editor-panel"]').hidden = false;
  document.body.classList.add('editing');
  editorMsg('');
  syncEditor();
  renderRouteChoice();
  renderStatus();
  renderResult();
  // Side by side the panel is brought into view; stacked (a phone), the board stays in view.
  if (window.matchMedia('(max-width: 980px)').matches) $('#board').scrollIntoView({ block: 'start' });
  else $('[data-role="editor-panel"]').scrollIntoView({ block: 'nearest', behavior: 'smooth' });
}

function exitEditor(render = true) {
  S.mode = S.game ? 'play' : 'preview';
  if (S.detail) showTitle(S.detail);
  $('[data-role="editor-panel"]').hidden = true;
  document.body.classList.remove('editing');
  if (render) {
    renderBoard();
    renderStatus();
    renderResult();
    renderMoves();
  }
}

function editorFen() {
  const e = S.editor;
  return writeFen(e.detail, e.side === 'W' ? 'white' : 'black', e.pieces);
}

function syncEditor() {
  const e = S.editor;
  $('[data-field="editor-side"]').value = e.side;
  $('[data-field="editor-fen"]').value = editorFen();
  $$('[data-tool]').forEach((b) => b.classList.toggle('on', b.getAttribute('data-tool') === e.tool));
  $$('[data-tool]').forEach((b) => b.setAttribute('aria-pressed', b.getAttribute('data-tool') === e.tool ? 'true' : 'false'));
  renderBoard();
}

function editorClick(sq) {
  const e = S.editor;
  const cur = e.pieces.get(sq);
  if (e.tool === 'erase') e.pieces.delete(sq);
  else {
    const [color, kind] = e.tool.split('-');
    const king = kind === 'king';
    if (cur && cur.color === color && cur.king === king) e.pieces.delete(sq);
    else e.pieces.set(sq, { color, king });
  }
  editorMsg('');
  syncEditor();
}

/** The editor's message line; ok true/false marks a check's answer (data-ok), null plain text. */
function editorMsg(text, ok = null) {
  const msg = $('[data-role="editor-msg"]');
  msg.className = `editor-msg${ok === true ? ' ok' : ok === false ? ' bad' : ''}`;
  if (ok === null) msg.removeAttribute('data-ok');
  else msg.setAttribute('data-ok', ok ? 'true' : 'false');
  msg.textContent = text;
}

async function editorCheck() {
  const e = S.editor;
  editorMsg('Checking…');
  try {
    const r = await api('POST', '/api/positions/check', { variant: e.detail.id, fen: editorFen() });
    editorMsg(`Legal position: ${r.fen}`, true);
    return r.fen;
  } catch (err) {
    editorMsg(err.message, false);
    return null;
  }
}

async function editorPlay() {
  const fen = await editorCheck();
  if (!fen) return;
  const v = $('[data-field="editor-players"]').value;
  const opponent = v === 'human-human' ? 'human' : 'engine';
  const color = v === 'engine-human' ? 'black' : 'white';
  try {
    await startGame({ variant: S.editor.detail.id, opponent, color, time: S.settings.time, fen });
  } catch (err) {
    toast(`Could not start: ${err.message}`);
  }
}

/** Opens the editor's position on the analysis board (a game between two people). */
async function editorAnalyse() {
  const fen = await editorCheck();
  if (!fen) return;
  try {
    await startGame({ variant: S.editor.detail.id, opponent: 'human', color: 'white', time: S.settings.time, fen });
    setAnalysis(true);
  } catch (err) {
    toast(`Could not open the analysis: ${err.message}`);
  }
}

/* ---------- wiring ---------- */

async function onAction(action, el) {
  switch (action) {
    case 'new-game':
      openNewGame();
      break;
    case 'games':
      openGames();
      break;
    case 'undo':
      undo();
      break;
    case 'redo':
      redo();
      break;
    case 'flip':
      S.flipped = !S.flipped;
      renderBoard();
      renderEngine();
      break;
    case 'hint':
      hint();
      break;
    case 'engine-play':
      S.enginePaused = false;
      maybeEngine();
      break;
    case 'rules':
      openRules();
      break;
    case 'share':
      openShare();
      break;
    case 'editor':
      if (S.mode === 'editor') exitEditor();
      else enterEditor();
      break;
    case 'start-game':
      startFromDialog();
      break;
    case 'rematch':
      rematch();
      break;
    case 'close':
      el.closest('dialog')?.close();
      break;
    case 'copy-fen':
      copyText($('[data-field="fen-out"]').value, 'FEN');
      break;
    case 'copy-pdn':
      try {
        const r = await fetch(`/api/games/${encodeURIComponent(S.game.id)}/pdn`);
        copyText(await r.text(), 'PDN');
      } catch (err) {
        toast(err.message);
      }
      break;
    case 'import':
      importGame();
      break;
    case 'import-game':
      importGame(Number(el.getAttribute('data-number')));
      break;
    case 'resume': {
      const id = el.getAttribute('data-game');
      closeDialogs();
      if (id) location.hash = `#/game/${id}`;
      if (S.game?.id === id) refreshGame();
      break;
    }
    case 'pick-route': {
      const full = el.getAttribute('data-full');
      const m = remainingRoutes().find((r) => r.full === full);
      if (m) submitMove(m);
      break;
    }
    case 'cancel-route':
      deselect();
      break;
    case 'editor-clear':
      S.editor.pieces = new Map();
      syncEditor();
      break;
    case 'editor-start': {
      const p = parseFen(S.editor.detail, S.editor.detail.start_fen);
      S.editor.pieces = p.pieces;
      S.editor.side = p.side === 'white' ? 'W' : 'B';
      syncEditor();
      break;
    }
    case 'editor-check':
      editorCheck();
      break;
    case 'editor-play':
      editorPlay();
      break;
    case 'editor-exit':
      exitEditor();
      break;
    case 'editor-analyse':
      editorAnalyse();
      break;
    case 'analyse':
      setAnalysis(!A.on);
      break;
    case 'make-main':
      makeMainLine();
      break;
    case 'delete-variation':
      deleteVariation();
      break;
    case 'nav-start':
      navigate('start');
      break;
    case 'nav-back':
      navigate('back');
      break;
    case 'nav-forward':
      navigate('forward');
      break;
    case 'nav-end':
      navigate('end');
      break;
    case 'home':
      break;
    default:
      break;
  }
}

/* ---------- the move tree: navigation ---------- */

/** A tag of an imported game (White, Black, Event, ...), if it has one. */
function tagOf(g, name) {
  const t = (g?.tags || []).find(([k]) => k.toLowerCase() === name.toLowerCase());
  return t && t[1] && t[1] !== '?' ? t[1] : null;
}

/** The shown node is not the end of the main line: moves here start or follow variations. */
function inThePast() {
  const t = S.game?.tree;
  return !!(t && t.current !== t.main_end);
}

/** Whether a node is on the main line. */
function isMainNode(t, id) {
  while (id !== 0) {
    const p = t.nodes[id].parent;
    if (t.nodes[p].children[0] !== id) return false;
    id = p;
  }
  return true;
}

/** A move as the list shows it: the full route of a capture (every landing square). */
function moveLabel(n) {
  return n.capture && n.full ? n.full : n.notation;
}

function moveNumber(ply) {
  return Math.floor((ply + 1) / 2);
}

/**
 * A comment's PGN commands (`[%clk 0:05:02]`, as Damspel and lichess write the time left;
 * `[%clock w0:09:57 B0:09:58]`, as lidraughts writes both clocks; others such as
 * `[%eval 0.3]`) are data, not words: the time left of the side that moved (`side`) is shown
 * beside the move and the other commands are left out. The comment itself keeps them (export
 * writes them back).
 */
function splitComment(text, side) {
  if (!text) return { words: '', clock: null };
  let clock = null;
  const words = text
    .replace(/\[%(\w+)([^\]]*)\]/g, (_, command, value) => {
      if (clock === null && command === 'clk') clock = value.trim();
      if (clock === null && command === 'clock') clock = moverTime(value, side);
      return ' ';
    })
    .replace(/\s+/g, ' ')
    .trim();
  return { words, clock };
}

/** The mover's time left after a move of the main line of a game with a clock (h:mm:ss, as the
 * PDN export's `[%clk]` writes it), or null. */
function clockAfter(g, n) {
  const left = g.clock?.after?.[n.ply - 1];
  if (!left) return null;
  const s = Math.floor(Math.max(0, n.side === 'white' ? left[0] : left[1]) / 1000);
  return `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** The mover's time in a `%clock` value: one time, or that of its side among lidraughts's two
 * (`w0:09:57 B0:09:58`: a letter per side, the side to move in capitals). */
function moverTime(value, side) {
  const times = [...value.matchAll(/([wWbB]?)(\d+:\d\d:\d\d)/g)];
  if (times.length === 1 && !times[0][1]) return times[0][2];
  const mine = times.find((m) => m[1] && m[1].toLowerCase() === (side || '').charAt(0));
  return mine ? mine[2] : null;
}

function moveSpan(n, cur, cls = '', played = null) {
  const nags = (n.nags || []).map((x) => `<span class="nag">${esc(x)}</span>`).join('');
  const clock = splitComment(n.comment, n.side).clock || played;
  const clk = clock ? `<span class="clk" title="${esc(tr('moves.clock_left'))}">${esc(clock)}</span>` : '';
  return `<span class="mv ${n.side}${n.id === cur ? ' current' : ''}${cls}" data-node="${n.id}" data-ply="${n.ply}" title="${esc(n.full)}">${esc(moveLabel(n))}${nags}${clk}</span>`;
}

function commentHtml(text) {
  const { words } = splitComment(text);
  return words ? `<span class="comment">${esc(words)}</span>` : '';
}

/** A variation inline: its moves, numbered, with the variations inside it in parentheses. */
function lineHtml(nodes, id, cur) {
  let html = '';
  let first = true;
  for (;;) {
    const n = nodes[id];
    if (n.pre) html += commentHtml(n.pre);
    if (n.ply % 2 === 1) html += `<span class="no">${moveNumber(n.ply)}.</span>`;
    else if (first) html += `<span class="no">${moveNumber(n.ply)}…</span>`;
    html += moveSpan(n, cur);
    html += commentHtml(n.comment);
    if (!first) {
      for (const v of nodes[n.parent].children.slice(1)) html += `<span class="paren">(</span>${lineHtml(nodes, v, cur)}<span class="paren">)</span>`;
    }
    first = false;
    if (!n.children.length) break;
    id = n.children[0];
  }
  return html;
}

/** The main line as numbered rows, each move's variations in a box under its row. */
function moveTreeHtml(g) {
  const { nodes, current } = g.tree;
  const opening = commentHtml(nodes[0].comment);
  let html = opening ? `<li class="vars">${opening}</li>` : '';
  const main = [];
  for (let id = nodes[0].children[0]; id !== undefined; id = nodes[id].children[0]) main.push(nodes[id]);
  let row = null;
  const flush = () => {
    if (!row) return;
    const cell = (n) => (n ? moveSpan(n, current, '', clockAfter(g, n)) : '<span class="mv empty">…</span>');
    html += `<li><span class="no">${moveNumber(row.ply)}.</span>${cell(row.a)}${cell(row.b)}</li>`;
    row = null;
  };
  for (const n of main) {
    const odd = n.ply % 2 === 1;
    if (!row || odd || row.b) {
      flush();
      row = { ply: n.ply, a: odd ? n : null, b: null };
    }
    if (!odd) row.b = n;
    const vars = nodes[n.parent].children.slice(1);
    const comment = commentHtml(n.comment);
    if (vars.length || comment) {
      flush();
      html += `<li class="vars">${comment}`;
      for (const v of vars) html += `<div class="var">${lineHtml(nodes, v, current)}</div>`;
      html += '</li>';
    }
  }
  flush();
  return html;
}

/** Players, event and result of an imported game. */
function renderGameInfo() {
  const el = $('[data-role="game-info"]');
  if (!el) return;
  const g = S.game;
  const white = g && tagOf(g, 'White');
  const black = g && tagOf(g, 'Black');
  const event = g && tagOf(g, 'Event');
  const result = g && tagOf(g, 'Result');
  if (!g || S.mode !== 'play' || !(white || black || event)) {
    el.hidden = true;
    return;
  }
  el.hidden = false;
  const date = tagOf(g, 'Date');
  el.innerHTML = `<div class="players-names"><span class="dot white"></span><b data-role="info-white">${esc(white || '?')}</b> <span class="vs">–</span> <span class="dot black"></span><b data-role="info-black">${esc(black || '?')}</b></div>
    <div class="muted small"><span data-role="info-event">${esc(event || '')}</span>${date ? ` · ${esc(date)}` : ''}${result ? ` · <b data-role="info-result">${esc(result)}</b>` : ''}</div>`;
}

let navQueue = Promise.resolve();

/** A game this browser shares (a friend's, or one it watches): stepping through it is a
 * read-only view (GET ?node=N) that leaves the game, and the other player's board, alone. */
function localView(g = S.game) {
  if (!g) return false;
  const held = seatsOf(g.id);
  const humans = ['white', 'black'].filter((c) => g[c] === 'human');
  return !humans.some((c) => held[c]) || (humans.length === 2 && !(held.white && held.black));
}

/** Shows a node of the tree (one request at a time, in order). */
function gotoNode(node) {
  const g = S.game;
  if (!g || !g.tree || node === undefined || node === null) return Promise.resolve();
  navQueue = navQueue.then(async () => {
    if (!S.game || S.game.id !== g.id || S.game.tree.current === node) return;
    try {
      const state = localView(g)
        ? await api('GET', `/api/games/${encodeURIComponent(g.id)}?node=${node}`)
        : await api('POST', `/api/games/${encodeURIComponent(g.id)}/goto`, { node });
      if (S.game && state.id === S.game.id) setGame(state, { animate: node === S.game.tree.nodes[S.game.tree.current]?.children[0] });
    } catch (err) {
      toast(`Could not show that move: ${err.message}`);
    }
  });
  return navQueue;
}

/** The node a navigation step leads to from the shown one. */
function stepTarget(kind) {
  const t = S.game?.tree;
  if (!t) return null;
  const n = t.nodes[t.current];
  switch (kind) {
    case 'back':
      return t.current === 0 ? null : n.parent;
    case 'forward':
      return n.children[0] ?? null;
    case 'start':
      return 0;
    case 'end': {
      let id = t.current;
      while (t.nodes[id].children.length) id = t.nodes[id].children[0];
      return id;
    }
    case 'up':
    case 'down': {
      if (t.current === 0) return null;
      const sib = t.nodes[n.parent].children;
      const i = sib.indexOf(t.current) + (kind === 'up' ? -1 : 1);
      return sib[i] ?? null;
    }
    default:
      return null;
  }
}

function navigate(kind) {
  if (S.mode !== 'play' || engineBusy()) return;
  const to = stepTarget(kind);
  if (to !== null && to !== undefined) gotoNode(to);
}

function navKey(e) {
  if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || document.querySelector('dialog[open]')) return;
  const tag = (e.target?.tagName || '').toLowerCase();
  if (tag === 'input' || tag === 'textarea' || tag === 'select' || e.target?.isContentEditable) return;
  const kind = { ArrowLeft: 'back', ArrowRight: 'forward', Home: 'start', End: 'end', ArrowUp: 'up', ArrowDown: 'down' }[e.key];
  if (!kind || S.mode !== 'play' || !S.game) return;
  e.preventDefault();
  navigate(kind);
}

function installNavigation() {
  $('[data-role="movelist"]').addEventListener('click', (e) => {
    const m = e.target.closest('[data-node]');
    if (m) gotoNode(Number(m.getAttribute('data-node')));
  });
  // The wheel steps through the moves over the move list and the board.
  let acc = 0;
  const wheel = (e) => {
    if (S.mode !== 'play' || !S.game) return;
    e.preventDefault();
    acc += e.deltaY;
    if (Math.abs(acc) < 30) return;
    navigate(acc > 0 ? 'forward' : 'back');
    acc = 0;
  };
  $('[data-role="movelist"]').parentElement.addEventListener('wheel', wheel, { passive: false });
  $('#board').addEventListener('wheel', wheel, { passive: false });
}

/** Makes the line of the shown node the main line, so that the game goes on from it. */
async function makeMainLine() {
  const g = S.game;
  if (!g) return;
  try {
    const state = await api('POST', `/api/games/${encodeURIComponent(g.id)}/promote`, { node: g.tree.current, main: true });
    S.enginePaused = false;
    setGame(state, { animate: false });
  } catch (err) {
    toast(`Main line: ${err.message}`);
  }
}

async function deleteVariation() {
  const g = S.game;
  if (!g || g.tree.current === 0) return;
  try {
    setGame(await api('POST', `/api/games/${encodeURIComponent(g.id)}/delete`, { node: g.tree.current }), { animate: false });
  } catch (err) {
    toast(`Delete: ${err.message}`);
  }
}

/* ---------- analysis board ---------- */

/** The analysis: on or off, lines wanted, the running request, the last lines of the shown node. */
const A = { on: false, lines: 3, ctrl: null, key: null, data: null, done: false };

function showEngine() {
  return S.settings.showEngine !== false;
}

function stopAnalysis() {
  if (A.ctrl) A.ctrl.abort();
  A.ctrl = null;
  A.key = null;
}

/** Starts (or keeps) the analysis of the shown position; stops it when it is not wanted. */
function analysisFollow() {
  const g = S.game;
  if (!A.on || !g || S.mode !== 'play' || g.outcome || !g.legal.length || engineBusy()) {
    stopAnalysis();
    if (!A.on || !g || g.outcome) A.data = null;
    renderAnalysis();
    return;
  }
  const key = `${g.id}|${g.tree.current}|${g.fen}|${A.lines}`;
  if (A.key === key) return;
  stopAnalysis();
  A.key = key;
  A.data = null;
  A.done = false;
  const ctrl = new AbortController();
  A.ctrl = ctrl;
  renderAnalysis();
  api('POST', `/api/games/${encodeURIComponent(g.id)}/analyse`, { lines: A.lines, node: g.tree.current }, false, ctrl.signal)
    .then((answer) => {
      if (A.ctrl !== ctrl) return;
      A.ctrl = null;
      A.done = true;
      if (answer.lines?.length) A.data = { ...answer, node: g.tree.current };
      renderAnalysis();
      renderBoard();
    })
    .catch((err) => {
      if (A.ctrl !== ctrl || err.name === 'AbortError') return;
      A.ctrl = null;
      toast(`Analysis: ${err.message}`);
      renderAnalysis();
    });
}

/** An `info` event of the analysis running for the shown node (true: it was one). */
function analysisInfo(info) {
  if (!A.on || !A.ctrl || !S.game || engineBusy()) return false;
  if (info.node !== S.game.tree.current) return true;
  A.data = info;
  if (info.score) S.evalWhite = toWhite(info.score, S.game.side_to_move);
  S.info = info;
  renderAnalysis();
  renderEngine();
  renderBoard();
  return true;
}

function analysisArrows() {
  const g = S.game;
  if (!A.on || !A.data || !g || !showEngine() || A.data.node !== g.tree.current || S.mode !== 'play') return [];
  return (A.data.lines || [])
    .filter((l) => l.from && l.path)
    .map((l, i) => ({ squares: [l.from, ...l.path], cls: `analysis${i === 0 ? ' best' : ''}` }))
    .reverse();
}

function renderAnalysis() {
  const card = $('[data-role="analysis"]');
  if (!card) return;
  card.classList.toggle('on', A.on);
  $('[data-field="analysis-on"]').checked = A.on;
  $('[data-field="analysis-lines"]').value = String(A.lines);
  $('[data-field="show-engine"]').checked = showEngine();
  document.body.classList.toggle('engine-hidden', !showEngine());
  const g = S.game;
  const d = A.on && A.data && g && A.data.node === g.tree.current ? A.data : null;
  const st = $('[data-role="analysis-state"]');
  st.textContent = !A.on ? tr('analysis.off') : A.ctrl ? tr('analysis.running') : A.done ? tr('analysis.done') : g?.outcome ? tr('engine.over') : '';
  $('[data-role="analysis-depth"]').textContent = d ? tr('analysis.depth', { depth: d.depth }) : '';
  const side = g?.side_to_move;
  $('[data-role="analysis-lines"]').innerHTML = d && showEngine()
    ? (d.lines || []).map((l, i) => `<li data-line="${i + 1}" data-full="${esc(l.full || '')}"><span class="score">${esc(scoreShort(toWhite(l.score, side)))}</span> ${(l.pv || []).slice(0, 10).map((m, j) => `<span class="pv-move${j === 0 ? ' first' : ''}">${esc(m)}</span>`).join(' ')}</li>`).join('')
    : '';
  syncBoardAttrs();
}

function setAnalysis(on) {
  A.on = on;
  if (!on) {
    stopAnalysis();
    A.data = null;
  }
  analysisFollow();
  renderBoard();
}

function installAnalysis() {
  $('[data-field="analysis-on"]').addEventListener('change', (e) => setAnalysis(e.target.checked));
  $('[data-field="analysis-lines"]').addEventListener('change', (e) => {
    A.lines = Math.min(Math.max(Number(e.target.value) || 1, 1), 5);
    A.key = null;
    analysisFollow();
  });
  $('[data-field="show-engine"]').addEventListener('change', (e) => {
    S.settings.showEngine = e.target.checked;
    saveSettings();
    renderAnalysis();
    renderEngine();
    renderBoard();
  });
  renderAnalysis();
}

function wire() {
  document.addEventListener('click', (e) => {
    const t = e.target.closest('[data-action]');
    if (t && !t.disabled) {
      const action = t.getAttribute('data-action');
      if (action === 'home') {
        e.preventDefault();
        return;
      }
      if (t.tagName === 'A' && (action === 'download-pdn' || action === 'game-pdn')) return; // plain download link
      e.preventDefault();
      onAction(action, t);
      return;
    }
    const v = e.target.closest('[data-role="variant-list"] [data-variant]');
    if (v) {
      pickVariant(v.getAttribute('data-variant'));
      return;
    }
    const tool = e.target.closest('[data-tool]');
    if (tool && S.editor) {
      S.editor.tool = tool.getAttribute('data-tool');
      syncEditor();
      return;
    }
    const chip = e.target.closest('[data-time]');
    if (chip) {
      $('[data-field="engine-time"]').value = chip.getAttribute('data-time');
      syncNewGameForm();
    }
  });
  // Double click in the picker starts the game at once.
  $('[data-role="variant-list"]').addEventListener('dblclick', (e) => {
    const v = e.target.closest('[data-variant]');
    if (v) {
      S.pick = v.getAttribute('data-variant');
      startFromDialog();
    }
  });
  $('[data-field="variant-filter"]').addEventListener('input', renderVariantList);
  $('[data-role="new-game-form"]').addEventListener('change', syncNewGameForm);
  $('[data-field="engine-time"]').addEventListener('input', syncNewGameForm);
  $('[data-role="new-game-form"]').addEventListener('submit', (e) => e.preventDefault());
  $$('dialog').forEach((d) =>
    d.addEventListener('click', (e) => {
      if (e.target === d) d.close(); // click on the backdrop
    })
  );
  $('[data-field="import-file"]').addEventListener('change', importFileChosen);
  $('[data-field="editor-side"]').addEventListener('change', (e) => {
    S.editor.side = e.target.value;
    editorMsg('');
    syncEditor();
  });
  $('[data-field="editor-fen"]').addEventListener('change', (e) => {
    try {
      const p = parseFen(S.editor.detail, e.target.value);
      S.editor.pieces = p.pieces;
      S.editor.side = p.side === 'white' ? 'W' : 'B';
      editorMsg('');
      syncEditor();
    } catch (err) {
      editorMsg(err.message, false);
    }
  });
  $('[data-field="editor-variant"]').addEventListener('change', async (e) => {
    const d = await variantDetail(e.target.value);
    S.editor.detail = d;
    showTitle(d);
    const p = parseFen(d, d.start_fen);
    S.editor.pieces = p.pieces;
    S.editor.side = p.side === 'white' ? 'W' : 'B';
    editorMsg('');
    syncEditor();
  });
  window.addEventListener('hashchange', route);
  installPointer();
  installNavigation();
  installAnalysis();
}

async function route() {
  const m = /^#\/game\/([\w-]+)/.exec(location.hash);
  if (m) {
    if (S.routeGame === m[1] && S.game?.id === m[1]) return;
    S.routeGame = m[1];
    const ok = await loadGame(m[1]);
    // A game opened by its address replaces whatever dialog was up (the new-game one, say).
    if (ok) closeDialogs();
    if (!ok) {
      history.replaceState(null, '', '#/');
      await showPreview();
      openNewGame();
    }
    return;
  }
  if (!S.game) {
    await showPreview();
    openNewGame();
  }
}

async function showPreview() {
  const id = S.variants.some((v) => v.id === S.settings.variant) ? S.settings.variant : S.variants[0]?.id;
  if (!id) return;
  const d = await showVariant(id);
  S.mode = 'preview';
  S.previewPieces = startPieces(d);
  renderBoard();
  renderStatus();
  renderMoves();
}

/** The node after `ply` plies of the main line (0: the start), or null past its end. */
function mainLineNode(ply) {
  const t = S.game?.tree;
  if (!t) return null;
  let id = 0;
  for (let i = 0; i < ply; i++) {
    id = t.nodes[id].children[0];
    if (id === undefined) return null;
  }
  return id;
}

/* What the page's other modules (review.js) may use. */
window.damspel = Object.assign(window.damspel || {}, {
  game: () => S.game,
  api: (method, path, body) => api(method, path, body),
  // friend.js: show a game (a friend's, just created or joined) and read this browser's seats.
  show: async (state) => {
    await showVariant(state.variant);
    // An answer that arrived after a newer state of the same game (an event) shows that one.
    if (olderThanShown(state)) state = S.game;
    if (S.mode === 'editor') exitEditor(false);
    // A friend's game is seen from the seat this browser holds.
    S.flipped = seenAsBlack(state);
    S.game = null;
    setGame(state, { animate: false });
  },
  seats: (id) => seatsOf(id),
  variant: () => S.game?.variant || S.settings.variant,
  goToPly: (ply) => {
    const node = mainLineNode(ply);
    if (node !== null && S.mode === 'play' && !engineBusy()) gotoNode(node);
  },
});

/* ---------- the details players notice (issue 12, item 7): languages, board options, keyboard
 * entry, the variant picker's short list and notes. Strings: i18n.js; options: prefs.js. ---------- */

/** The most played variants, listed first in the picker. */
const POPULAR = ['international', 'russian', 'brazilian', 'american', 'turkish', 'dameo', 'armenian'];

/** Variants of a numbered family that carry a one-line note (what differs from the base). */
const NOTED = [
  'armenian', 'armenian-2', 'armenian-3', 'tama', 'greek', 'greek-2', 'greek-3', 'greek-4', 'greek-5', 'greek-6', 'greek-7',
  'turkthic-2', 'ossetian-keny', 'ossetian-keny-2', 'modified-gothic', 'modified-gothic-2', 'modern-gothic-2', 'teutonic-2',
  'babylonian-a', 'babylonian-b', 'babylonian-c', 'hoogland-10', 'deferred-halt-2',
];

/** The one-line note of a numbered variant ("Greek II: Greek I without the majority rule"), or ''. */
function variantNote(id) {
  if (!NOTED.includes(id)) return '';
  const key = `note.${id}`;
  const text = tr(key);
  return text === key ? '' : text;
}

/** Normalises a typed move: lower case, no spaces, ':' and 'x' both mean a capture. */
function typedMove(text) {
  return String(text).trim().toLowerCase().replace(/\s+/g, '').replace(/[:×]/g, 'x').replace(/–|—/g, '-');
}

/**
 * The legal moves a typed entry names: the exact notation or full route, else (from, to) with
 * any route, else from, the landing squares typed and to in that order.
 */
function movesTyped(text, legal) {
  const want = typedMove(text);
  const squares = want.split(/[-x]/).filter(Boolean);
  const exact = legal.filter((m) => typedMove(m.notation) === want || typedMove(m.full) === want);
  if (exact.length) return exact;
  if (squares.length < 2) return [];
  const norm = (sq) => String(sq).toLowerCase();
  return legal.filter((m) => {
    if (norm(m.from) !== squares[0] || norm(m.to) !== squares[squares.length - 1]) return false;
    // the squares typed between must be landing squares of the route, in order
    const path = m.path.map(norm);
    let at = 0;
    for (const sq of squares.slice(1, -1)) {
      at = path.indexOf(sq, at);
      if (at < 0) return false;
      at++;
    }
    return true;
  });
}

function entryMsg(text, ok = null) {
  const el = $('[data-role="move-entry-msg"]');
  el.textContent = text;
  if (ok === null) el.removeAttribute('data-ok');
  else el.setAttribute('data-ok', String(ok));
}

async function enterMove() {
  const input = $('[data-field="move-input"]');
  const text = input.value.trim();
  const g = S.game;
  if (!text) return;
  if (!g || !humanToMove()) {
    entryMsg(tr('entry.not_now'), false);
    return;
  }
  const found = movesTyped(text, g.legal);
  if (found.length === 1) {
    input.value = '';
    entryMsg('');
    await submitMove(found[0]);
    return;
  }
  if (found.length > 1) {
    entryMsg(tr('entry.ambiguous', { move: text, options: found.map((m) => m.full).join(', ') }), false);
  } else if (g.legal.length && g.legal.every((m) => m.captures.length)) {
    const options = [...new Set(g.legal.map((m) => m.notation))].slice(0, 6).join(', ');
    entryMsg(tr('entry.must_capture', { move: text, options }), false);
  } else {
    entryMsg(`${tr('entry.illegal', { move: text })} ${tr('entry.example', { example: g.legal[0]?.notation || '' })}`, false);
  }
}

/** The entry field's example is a legal move of the position, in the variant's own notation. */
function syncEntry() {
  const input = $('[data-field="move-input"]');
  if (!input) return;
  const m = S.game && S.mode === 'play' ? S.game.legal.find((l) => !l.captures.length) || S.game.legal[0] : null;
  input.placeholder = m ? `${tr('moves.entry_label')}: ${m.notation}` : tr('moves.entry_placeholder');
}

function installDetails() {
  $('[data-role="move-entry"]')?.addEventListener('submit', (e) => {
    e.preventDefault();
    enterMove();
  });
  document.addEventListener('damspel:game', () => {
    syncEntry();
    if (!S.game || !humanToMove()) return;
    const msg = $('[data-role="move-entry-msg"]');
    if (msg?.getAttribute('data-ok') === 'false' && !$('[data-field="move-input"]').value) entryMsg('');
  });
  document.addEventListener('damspel:prefs', () => renderBoard());
  document.addEventListener('damspel:lang', () => {
    renderStatus();
    renderMoves();
    renderResult();
    renderEngine();
    renderAnalysis();
    syncEntry();
    if ($('[data-dialog="new-game"]').open) {
      renderVariantList();
      if (S.pick) pickVariant(S.pick);
    }
  });
}

async function main() {
  await i18nReady;
  installDetails();
  wire();
  renderEngine();
  renderMoves();
  syncBoardAttrs();
  try {
    const data = await api('GET', '/api/variants');
    S.families = data.families || [];
    S.variants = data.variants || [];
  } catch (err) {
    toast(`Cannot reach the server: ${err.message}`);
    return;
  }
  await route();
  document.documentElement.setAttribute('data-ready', 'true');
}

main();
