// Game review panel: starts a review of the game on the board (POST /api/games/{id}/review),
// follows its progress on the game's event stream (`review` events), draws White's winning
// chances as an SVG graph, lists the marked moves with the better move and shows each player's
// accuracy. It talks to app.js only through window.damspel (game(), api(), and goToPly(ply) if
// the move list provides it) and the `damspel:game` event app.js fires when the game changes.
//
// Test hooks (data- attributes): the panel's data-status (idle, queued, running, done,
// cancelled, failed) and data-done / data-total; the graph's points data-ply and data-mark; the
// marked moves data-role="review-mark" with data-ply and data-mark; data-role="review-accuracy".

import { t, applyI18n } from './i18n.js';

const $ = (sel, root = document) => root.querySelector(sel);
const SVG = 'http://www.w3.org/2000/svg';
const W = 300;
const H = 90;
const TIME = 0.2; // seconds per position

const R = {
  gameId: null,
  evals: [], // White's win% per position, filled as progress comes in
  plies: [], // judged plies, by index (ply - 1)
  review: null, // the finished review
  es: null,
  selected: null,
};

const style = document.createElement('style');
style.textContent = `
.review-panel .review-head { display: flex; align-items: center; gap: 8px; justify-content: space-between; }
.review-panel .review-progress { height: 6px; background: var(--panel-2); border-radius: 3px; overflow: hidden; margin: 8px 0; }
.review-panel .review-progress > div { height: 100%; width: 0; background: var(--accent); transition: width .2s; }
.review-panel svg { width: 100%; height: auto; display: block; background: var(--panel-2); border-radius: 8px; margin: 6px 0; touch-action: manipulation; }
.review-panel .review-area { fill: #f7f4ee; }
.review-panel .review-black { fill: #3a3530; }
.review-panel .review-mid { stroke: var(--muted); stroke-width: .5; stroke-dasharray: 2 2; }
.review-panel .review-line { fill: none; stroke: var(--accent); stroke-width: 1.5; }
.review-panel circle { fill: var(--accent); cursor: pointer; }
.review-panel circle[data-mark="inaccuracy"] { fill: #e0b422; }
.review-panel circle[data-mark="mistake"] { fill: #ee7b22; }
.review-panel circle[data-mark="blunder"] { fill: #c8372d; }
.review-panel circle.selected { stroke: var(--text); stroke-width: 1.5; }
.review-panel .review-acc { display: grid; grid-template-columns: 1fr auto auto auto auto; gap: 2px 10px; font-size: .9em; }
.review-panel .review-acc .h { color: var(--muted); font-size: .85em; }
.review-panel ul { list-style: none; padding: 0; margin: 6px 0 0; font-size: .92em; }
.review-panel li { padding: 3px 4px; border-radius: 6px; cursor: pointer; display: flex; gap: 8px; flex-wrap: wrap; }
.review-panel li:hover, .review-panel li.selected { background: var(--panel-2); }
.review-panel .m-inaccuracy { color: #a57f00; font-weight: 600; }
.review-panel .m-mistake { color: #c25f10; font-weight: 600; }
.review-panel .m-blunder { color: #c8372d; font-weight: 600; }
.review-panel .review-detail { min-height: 1.3em; font-size: .9em; color: var(--muted); }
`;
document.head.appendChild(style);

function el(tag, attrs = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function svg(tag, attrs = {}) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function evalText(e) {
  if (!e) return '–';
  if (e.winner) {
    const side = t(e.winner === 'white' ? 'side.white' : 'side.black');
    return e.mate ? t('review.wins_in', { side, n: e.mate }) : t('review.has_won', { side });
  }
  const m = Number(e.men ?? 0);
  return `${m > 0 ? '+' : ''}${m.toFixed(2)}`;
}

const SYMBOL = { inaccuracy: '?!', mistake: '?', blunder: '??' };

/* ---------- the panel ---------- */

const panel = el('div', { class: 'card review-panel', 'data-role': 'review-panel', 'data-status': 'idle', hidden: '' });
panel.innerHTML = `
  <div class="review-head">
    <div class="card-title" data-i18n="review.title">Game review</div>
    <div>
      <button type="button" class="btn primary" data-action="review-start">Start review</button>
      <button type="button" class="btn" data-action="review-cancel" hidden data-i18n="review.stop">Stop</button>
    </div>
  </div>
  <div class="muted small" data-role="review-status">The engine looks at every position of the game and marks the moves that lost winning chances.</div>
  <div class="review-progress" data-role="review-progress"><div></div></div>
  <div data-role="review-graph-box"></div>
  <div class="review-detail" data-role="review-detail"></div>
  <div class="review-acc" data-role="review-accuracy"></div>
  <ul data-role="review-marks"></ul>`;

function mount() {
  // Beside the other tools; at the end of the side column if the page has no tools card.
  const tools = $('.card.tools');
  const side = $('.side');
  if (!tools && !side) return false;
  const button = el('button', { type: 'button', class: 'btn', 'data-action': 'review', 'data-i18n': 'review.button' }, 'Review');
  if (tools) {
    tools.appendChild(button);
    tools.after(panel);
  } else {
    const card = el('div', { class: 'card tools' });
    card.appendChild(button);
    side.append(card, panel);
  }
  button.addEventListener('click', toggle);
  $('[data-action="review-start"]', panel).addEventListener('click', start);
  $('[data-action="review-cancel"]', panel).addEventListener('click', cancel);
  return true;
}

function status(s, text) {
  panel.dataset.status = s;
  if (text !== undefined) $('[data-role="review-status"]', panel).textContent = text;
  const busy = s === 'queued' || s === 'running';
  $('[data-action="review-start"]', panel).hidden = busy;
  $('[data-action="review-cancel"]', panel).hidden = !busy;
  $('[data-action="review-start"]', panel).textContent = t(s === 'done' ? 'review.again' : 'review.start');
}

function progress(done, total) {
  panel.dataset.done = String(done);
  panel.dataset.total = String(total);
  $('[data-role="review-progress"] > div', panel).style.width = total ? `${(100 * done) / total}%` : '0';
}

function reset() {
  R.evals = [];
  R.plies = [];
  R.review = null;
  R.selected = null;
  closeEvents();
  progress(0, 0);
  status('idle', t('review.intro'));
  $('[data-role="review-graph-box"]', panel).replaceChildren();
  $('[data-role="review-accuracy"]', panel).replaceChildren();
  $('[data-role="review-marks"]', panel).replaceChildren();
  $('[data-role="review-detail"]', panel).textContent = '';
}

function currentGame() {
  return window.damspel && window.damspel.game ? window.damspel.game() : null;
}

async function toggle() {
  panel.hidden = !panel.hidden;
  if (!panel.hidden) await load();
}

/** Shows the stored review of the game, or its progress if one runs. */
async function load() {
  const game = currentGame();
  if (!game) return;
  if (R.gameId !== game.id) {
    reset();
    R.gameId = game.id;
  }
  try {
    const r = await window.damspel.api('GET', `/api/games/${encodeURIComponent(game.id)}/review`);
    if (R.gameId !== game.id) return;
    if (r.status === 'running') {
      status('running', t('review.running'));
      progress(r.done, r.total);
      openEvents(game.id);
    } else if (r.status === 'done') {
      show(r.review, r.stale);
    }
  } catch (err) {
    if (err.status !== 404) status('failed', t('review.read_failed', { error: err.message }));
  }
}

async function start() {
  const game = currentGame();
  if (!game) return;
  reset();
  R.gameId = game.id;
  openEvents(game.id);
  try {
    const r = await window.damspel.api('POST', `/api/games/${encodeURIComponent(game.id)}/review`, { time: TIME });
    if (panel.dataset.status === 'idle') status('queued', t('review.waiting'));
    progress(0, r.total);
  } catch (err) {
    closeEvents();
    status('failed', err.message);
  }
}

async function cancel() {
  if (!R.gameId) return;
  try {
    await window.damspel.api('DELETE', `/api/games/${encodeURIComponent(R.gameId)}/review`);
  } catch (err) {
    status('failed', err.message);
  }
}

/* ---------- progress ---------- */

function openEvents(id) {
  closeEvents();
  if (!window.EventSource) return;
  const es = new EventSource(`/api/games/${encodeURIComponent(id)}/events`);
  R.es = es;
  es.addEventListener('review', (e) => {
    if (R.gameId !== id) return;
    let d;
    try {
      d = JSON.parse(e.data);
    } catch {
      return;
    }
    onProgress(id, d);
  });
}

function closeEvents() {
  if (R.es) R.es.close();
  R.es = null;
}

async function onProgress(id, d) {
  if (d.status === 'queued') {
    status('queued', t('review.waiting'));
    progress(0, d.total);
  } else if (d.status === 'running') {
    status('running', t('review.progress', { done: d.done || 0, total: d.total }));
    progress(d.done || 0, d.total);
    if (d.eval && d.done) R.evals[d.done - 1] = d.eval;
    if (d.ply) R.plies[d.ply.ply - 1] = d.ply;
    drawGraph();
  } else if (d.status === 'done') {
    closeEvents();
    progress(d.total, d.total);
    try {
      const r = await window.damspel.api('GET', `/api/games/${encodeURIComponent(id)}/review`);
      if (R.gameId === id && r.status === 'done') show(r.review, r.stale);
    } catch (err) {
      status('failed', err.message);
    }
  } else if (d.status === 'cancelled') {
    closeEvents();
    status('cancelled', t('review.stopped'));
  } else if (d.status === 'failed') {
    closeEvents();
    status('failed', t('review.failed', { error: d.error }));
  }
}

/* ---------- the finished review ---------- */

function show(review, stale) {
  R.review = review;
  R.evals = review.evals.slice();
  R.plies = review.plies.slice();
  progress(R.evals.length, R.evals.length);
  status('done', stale ? t('review.stale') : t('review.done'));
  drawGraph();
  drawAccuracy(review.players);
  drawMarks();
}

function drawGraph() {
  const box = $('[data-role="review-graph-box"]', panel);
  const total = Math.max(Number(panel.dataset.total) || 0, R.evals.length, 2);
  const x = (i) => (W * i) / (total - 1);
  const y = (e) => H - (H * e.white_win) / 100;
  const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, 'data-role': 'review-graph', role: 'img', 'aria-label': "White's winning chances after each move" });
  g.appendChild(svg('rect', { class: 'review-black', x: 0, y: 0, width: W, height: H }));
  const known = R.evals.map((e, i) => [i, e]).filter(([, e]) => e);
  if (known.length) {
    // White's share is the light area under the line.
    const pts = known.map(([i, e]) => `${x(i).toFixed(1)},${y(e).toFixed(1)}`);
    const first = x(known[0][0]).toFixed(1);
    const last = x(known[known.length - 1][0]).toFixed(1);
    g.appendChild(svg('polygon', { class: 'review-area', points: `${first},${H} ${pts.join(' ')} ${last},${H}` }));
    g.appendChild(svg('line', { class: 'review-mid', x1: 0, x2: W, y1: H / 2, y2: H / 2 }));
    g.appendChild(svg('polyline', { class: 'review-line', points: pts.join(' ') }));
    for (const [i, e] of known) {
      const ply = i > 0 ? R.plies[i - 1] : null;
      const mark = ply && ply.mark;
      const c = svg('circle', { cx: x(i).toFixed(1), cy: y(e).toFixed(1), r: mark ? 4 : 2.2, 'data-ply': i });
      if (mark) c.setAttribute('data-mark', mark);
      if (R.selected === i) c.classList.add('selected');
      const title = svg('title');
      title.textContent = ply ? `${ply.number} ${ply.played}${mark ? SYMBOL[mark] : ''} ${evalText(e)}` : `Start ${evalText(e)}`;
      c.appendChild(title);
      c.addEventListener('click', () => select(i));
      g.appendChild(c);
    }
  }
  box.replaceChildren(g);
}

function drawAccuracy(players) {
  const box = $('[data-role="review-accuracy"]', panel);
  const game = currentGame() || {};
  const tag = (name) => {
    const found = (game.tags || []).find(([k]) => k.toLowerCase() === name.toLowerCase());
    return found && found[1] && found[1] !== '?' ? ` (${found[1]})` : '';
  };
  box.replaceChildren(
    ...['', t('review.accuracy'), '?!', '?', '??'].map((h) => el('span', { class: 'h' }, h)),
  );
  for (const side of ['white', 'black']) {
    const p = players[side];
    const name = `${t(side === 'white' ? 'side.white' : 'side.black')}${tag(side)}`;
    box.append(
      el('span', {}, name),
      el('span', { 'data-accuracy': side }, p.accuracy === null || p.accuracy === undefined ? '–' : `${p.accuracy.toFixed(1)}%`),
      el('span', { class: 'm-inaccuracy' }, String(p.inaccuracies)),
      el('span', { class: 'm-mistake' }, String(p.mistakes)),
      el('span', { class: 'm-blunder' }, String(p.blunders)),
    );
  }
}

function drawMarks() {
  const list = $('[data-role="review-marks"]', panel);
  const marked = R.plies.filter((p) => p && p.mark);
  if (!marked.length) {
    list.replaceChildren(el('li', { class: 'muted' }, t('review.nothing_marked')));
    return;
  }
  list.replaceChildren(
    ...marked.map((p) => {
      const li = el('li', { 'data-role': 'review-mark', 'data-ply': p.ply, 'data-mark': p.mark });
      li.append(
        el('span', { class: `m-${p.mark}` }, `${p.number} ${p.played}${SYMBOL[p.mark]}`),
        el('span', {}, `${p.mark} (${evalText(p.before)} → ${evalText(p.after)})`),
        el('span', { class: 'muted' }, p.best ? `better ${p.best}` : ''),
      );
      li.addEventListener('click', () => select(p.ply));
      return li;
    }),
  );
}

/** A position of the graph (0 = the start, i = after ply i): shown, and the board sent there
 * when app.js offers a way. */
function select(i) {
  R.selected = i;
  const ply = i > 0 ? R.plies[i - 1] : null;
  const e = R.evals[i];
  const detail = ply
    ? `After ${ply.number} ${ply.played}${ply.mark ? SYMBOL[ply.mark] : ''}: ${evalText(e)}${ply.mark && ply.best ? ` · better ${ply.best} (${evalText(ply.before)})` : ''}`
    : `Start: ${evalText(e)}`;
  $('[data-role="review-detail"]', panel).textContent = detail;
  for (const c of panel.querySelectorAll('circle[data-ply]')) c.classList.toggle('selected', Number(c.dataset.ply) === i);
  for (const li of panel.querySelectorAll('li[data-ply]')) li.classList.toggle('selected', Number(li.dataset.ply) === i);
  if (window.damspel && typeof window.damspel.goToPly === 'function') window.damspel.goToPly(i);
}

document.addEventListener('damspel:game', (e) => {
  const id = e.detail && e.detail.id;
  if (id === R.gameId) return;
  reset();
  R.gameId = id || null;
  if (!panel.hidden) load();
});

if (!mount()) document.addEventListener('DOMContentLoaded', mount, { once: true });
applyI18n(panel);
document.addEventListener('damspel:lang', () => {
  applyI18n(panel);
  status(panel.dataset.status, panel.dataset.status === 'idle' ? t('review.intro') : undefined);
});
