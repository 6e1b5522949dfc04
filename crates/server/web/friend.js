// Playing a person (issue 12, items 5 and 6): "Play a friend" creates a game with an invitation
// link for the other seat; opening the link (#/game/ID/join/TOKEN) on another device takes that
// seat once; both clocks count down from the server's figures; Resign, Offer draw, Accept and
// Decline end the game on the server. It talks to app.js only through window.damspel (game(),
// api(), show(state), seats(id), variant()) and the `damspel:game` event; the live updates come
// through app.js's event stream, which the server starts with the whole state on every
// (re)connection, so nothing is missed after a dropped stream.
//
// Test hooks: data-role="friend-panel", "clock-white", "clock-black" (data-running on the
// running one), "invite-link", "draw-offer" (data-from), data-action="friend-new",
// "friend-create", "resign", "draw-offer", "draw-accept", "draw-decline", "copy-invite".

import { t, ready as i18nReady } from './i18n.js';

const $ = (sel, root = document) => root.querySelector(sel);
const D = () => window.damspel;

/** Text for HTML (catalogue strings are text, not markup). */
function esc(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}

const style = document.createElement('style');
style.textContent = `
.friend-panel { display: grid; gap: 8px; }
.friend-panel .clocks { display: flex; gap: 8px; }
.friend-panel .clock { flex: 1; padding: 6px 10px; border-radius: 8px; background: var(--panel-2); font: 600 1.3em/1.2 ui-monospace, monospace; text-align: center; }
.friend-panel .clock[data-running="true"] { background: var(--accent); color: var(--accent-text); }
.friend-panel .clock[data-low="true"] { color: #c8372d; }
.friend-panel .clock[data-running="true"][data-low="true"] { background: #c8372d; color: #fff; }
.friend-panel .invite input { width: 100%; font: inherit; font-size: .85em; }
.friend-panel .row { display: flex; gap: 6px; flex-wrap: wrap; align-items: center; }
.friend-dialog form { display: grid; gap: 8px; }
`;
document.head.appendChild(style);

// `ready`: the catalogues are in (before, t() would give keys).
const F = { tick: null, invites: new Map(), ready: false };

function inviteOf(id) {
  try {
    return F.invites.get(id) || localStorage.getItem(`damspel.invite.${id}`);
  } catch {
    return F.invites.get(id) || null;
  }
}

function keepInvite(id, link) {
  F.invites.set(id, link);
  try {
    localStorage.setItem(`damspel.invite.${id}`, link);
  } catch { /* private mode: kept for this page */ }
}

function panel() {
  let p = $('[data-role="friend-panel"]');
  if (p) return p;
  p = document.createElement('div');
  p.className = 'card friend-panel';
  p.setAttribute('data-role', 'friend-panel');
  const result = $('[data-role="result"]');
  if (result) result.after(p);
  else document.body.appendChild(p);
  p.addEventListener('click', onClick);
  return p;
}

function fmt(ms) {
  const t = Math.max(0, ms);
  const s = Math.floor(t / 1000);
  const m = Math.floor(s / 60);
  const tenths = t < 10000 ? `.${Math.floor((t % 1000) / 100)}` : '';
  return `${m}:${String(s % 60).padStart(2, '0')}${tenths}`;
}

/** Time left now for a side, from the server's figures (its clock runs from `since`). */
function left(clock, side) {
  const base = clock[`${side}_ms`];
  if (clock.running !== side || !clock.since) return base;
  return base - Math.max(0, Date.now() - clock.since);
}

function renderClocks() {
  const g = D()?.game();
  const p = $('[data-role="friend-panel"]');
  if (!g || !p || !g.clock) return;
  for (const side of ['white', 'black']) {
    const el = p.querySelector(`[data-role="clock-${side}"]`);
    if (!el) continue;
    const ms = left(g.clock, side);
    el.textContent = `${side === 'white' ? '○' : '●'} ${fmt(ms)}`;
    el.setAttribute('data-running', String(g.clock.running === side && !g.outcome));
    el.setAttribute('data-low', String(ms < 10000));
  }
}

function render() {
  if (!F.ready) return;
  const g = D()?.game();
  const p = panel();
  const held = g ? Object.keys(D().seats(g.id) || {}).filter((k) => k === 'white' || k === 'black') : [];
  const parts = [];
  if (g && g.clock) {
    parts.push('<div class="clocks"><div class="clock" data-role="clock-white"></div><div class="clock" data-role="clock-black"></div></div>');
  }
  const link = g && g.invite_open && inviteOf(g.id);
  if (link) {
    parts.push(`<div class="invite"><div class="muted">${esc(t('friend.send_link'))}</div>
      <div class="row"><input readonly data-role="invite-link" value="${link.replace(/"/g, '&quot;')}"><button type="button" class="btn" data-action="copy-invite">${esc(t('friend.copy'))}</button></div></div>`);
  } else if (g && g.invite_open === false && g.white === 'human' && g.black === 'human' && held.length === 1 && inviteOf(g.id)) {
    parts.push(`<div class="muted" data-role="friend-joined">${esc(t('friend.joined'))}</div>`);
  }
  if (g && !g.outcome && held.length) {
    const mine = held.length === 2 ? g.side_to_move : held[0];
    const offer = g.draw_offer;
    const row = [`<button type="button" class="btn" data-action="resign">${esc(t('friend.resign'))}</button>`];
    if (offer && offer !== mine) {
      row.push(`<span data-role="draw-offer" data-from="${offer}">${esc(t(offer === 'white' ? 'friend.offers_white' : 'friend.offers_black'))}</span>`);
      row.push(`<button type="button" class="btn primary" data-action="draw-accept">${esc(t('friend.accept'))}</button>`);
      row.push(`<button type="button" class="btn" data-action="draw-decline">${esc(t('friend.decline'))}</button>`);
    } else if (offer) {
      row.push(`<span class="muted" data-role="draw-offer" data-from="${offer}">${esc(t('friend.offered'))}</span>`);
    } else if (g.white === 'human' && g.black === 'human') {
      row.push(`<button type="button" class="btn" data-action="draw-offer">${esc(t('friend.offer'))}</button>`);
    }
    parts.push(`<div class="row">${row.join('')}</div>`);
  }
  parts.push(`<div class="row"><button type="button" class="btn" data-action="friend-new">${esc(t('friend.new'))}</button></div>`);
  p.innerHTML = parts.join('');
  renderClocks();
  clearInterval(F.tick);
  if (g && g.clock && g.clock.running && !g.outcome) F.tick = setInterval(renderClocks, 100);
}

async function act(path, body) {
  const g = D().game();
  try {
    const state = await D().api('POST', `/api/games/${g.id}/${path}`, body);
    await D().show(state);
  } catch (err) {
    toast(err.message);
  }
}

function toast(msg) {
  const t = document.createElement('div');
  t.className = 'toast';
  t.setAttribute('role', 'alert');
  t.textContent = msg;
  t.style.cssText = 'position:fixed;left:50%;bottom:24px;transform:translateX(-50%);background:#333;color:#fff;padding:8px 14px;border-radius:8px;z-index:99';
  document.body.appendChild(t);
  setTimeout(() => t.remove(), 4000);
}

function onClick(e) {
  const b = e.target.closest('[data-action]');
  if (!b) return;
  switch (b.getAttribute('data-action')) {
    case 'resign':
      if (window.confirm(t('friend.confirm_resign'))) act('resign', {});
      break;
    case 'draw-offer':
      act('draw', { action: 'offer' });
      break;
    case 'draw-accept':
      act('draw', { action: 'accept' });
      break;
    case 'draw-decline':
      act('draw', { action: 'decline' });
      break;
    case 'copy-invite': {
      const input = $('[data-role="invite-link"]');
      input.select();
      navigator.clipboard?.writeText(input.value).catch(() => {});
      break;
    }
    case 'friend-new':
      openDialog();
      break;
    default:
  }
}

function openDialog() {
  let d = $('dialog.friend-dialog');
  if (!d) {
    d = document.createElement('dialog');
    d.className = 'friend-dialog card';
    d.innerHTML = `<form method="dialog">
      <b>${esc(t('friend.title'))}</b>
      <label>${esc(t('friend.opponent'))} <select data-field="friend-opponent"><option value="friend">${esc(t('friend.opp_friend'))}</option><option value="engine">${esc(t('friend.opp_engine'))}</option></select></label>
      <label>${esc(t('friend.side'))} <select data-field="friend-seat"><option value="white">${esc(t('side.white'))}</option><option value="black">${esc(t('side.black'))}</option></select></label>
      <label>${esc(t('friend.minutes'))} <input type="number" min="0" max="180" step="any" value="5" data-field="friend-minutes"></label>
      <label>${esc(t('friend.increment'))} <input type="number" min="0" max="600" step="any" value="3" data-field="friend-increment"></label>
      <div class="row"><button type="button" class="btn primary" data-action="friend-create">${esc(t('friend.start'))}</button><button class="btn" value="cancel">${esc(t('friend.cancel'))}</button></div>
    </form>`;
    document.body.appendChild(d);
    d.querySelector('[data-action="friend-create"]').addEventListener('click', () => create(d));
  }
  d.showModal();
}

async function create(d) {
  const minutes = Number(d.querySelector('[data-field="friend-minutes"]').value) || 0;
  const increment = Number(d.querySelector('[data-field="friend-increment"]').value) || 0;
  const seat = d.querySelector('[data-field="friend-seat"]').value;
  const engine = d.querySelector('[data-field="friend-opponent"]').value === 'engine';
  const body = engine
    ? { variant: D().variant(), white: seat === 'white' ? 'human' : 'engine', black: seat === 'black' ? 'human' : 'engine' }
    : { variant: D().variant(), white: 'human', black: 'human', friend: true, seat };
  if (minutes > 0) body.clock = { minutes, increment };
  try {
    const state = await D().api('POST', '/api/games', body);
    if (state.invite) keepInvite(state.id, `${location.origin}${state.invite.link}`);
    d.close();
    await D().show(state);
  } catch (err) {
    toast(t('friend.create_failed', { error: err.message }));
  }
}

/** #/game/ID/join/TOKEN: take the free seat (once), then show the game. */
async function joinFromLink() {
  const m = /^#\/game\/([A-Za-z0-9]+)\/join\/([A-Za-z0-9]+)/.exec(location.hash);
  if (!m) return;
  const [, id, token] = m;
  history.replaceState(null, '', `#/game/${id}`);
  let state;
  try {
    state = await D().api('POST', `/api/games/${id}/join`, { invite: token });
  } catch (err) {
    toast(err.status === 409 || err.status === 403 ? `${err.message}` : t('friend.join_failed', { error: err.message }));
    try {
      state = await D().api('GET', `/api/games/${id}`);
    } catch {
      return;
    }
  }
  await D().show(state);
}

document.addEventListener('damspel:game', render);
i18nReady.finally(() => {
  F.ready = true;
  render();
});
window.addEventListener('hashchange', joinFromLink);
// Another language: the panel is drawn again, the dialog made again when next opened.
document.addEventListener('damspel:lang', () => {
  $('dialog.friend-dialog')?.remove();
  render();
});
joinFromLink();
