// Board options and sounds, remembered in localStorage (damspel.prefs): the board and piece
// themes (CSS variables chosen by <html data-board> and <html data-pieces>, see style.css),
// coordinates and square numbers on or off, and move and capture sounds.
//
// Sounds are synthesized with WebAudio (nothing is fetched) and are OFF by default: a page that
// starts making noise surprises people, and browsers only allow audio after a click anyway.
//
// Test hooks: the settings dialog [data-dialog="settings"] with data-field = board-theme,
// piece-set, show-coords, show-numbers, sound; <html data-board data-pieces>; changing an option
// fires `damspel:prefs` on document; window.damspel.sounds counts the sounds asked for
// ({move, capture}), played or not.

const STORE = 'damspel.prefs';
const DEFAULTS = { board: 'wood', pieces: 'classic', coords: true, numbers: true, sound: false };
const BOARDS = ['wood', 'green', 'blue', 'gray'];
const PIECES = ['classic', 'red', 'flat'];

function load() {
  try {
    const p = { ...DEFAULTS, ...JSON.parse(localStorage.getItem(STORE) || '{}') };
    if (!BOARDS.includes(p.board)) p.board = DEFAULTS.board;
    if (!PIECES.includes(p.pieces)) p.pieces = DEFAULTS.pieces;
    return p;
  } catch {
    return { ...DEFAULTS };
  }
}

/** The options in force (read-only for other scripts; change them with setPref). */
export const prefs = load();

function apply() {
  const root = document.documentElement;
  root.dataset.board = prefs.board;
  root.dataset.pieces = prefs.pieces;
}

export function setPref(key, value) {
  prefs[key] = value;
  try {
    localStorage.setItem(STORE, JSON.stringify(prefs));
  } catch { /* private mode */ }
  apply();
  syncForm();
  document.dispatchEvent(new CustomEvent('damspel:prefs', { detail: { key, value } }));
}

/* ---------- sounds ---------- */

const counts = { move: 0, capture: 0 };
let audio = null;

function tone(ctx, at, freq, dur, gain, type = 'sine') {
  const o = ctx.createOscillator();
  const g = ctx.createGain();
  o.type = type;
  o.frequency.setValueAtTime(freq, at);
  o.frequency.exponentialRampToValueAtTime(freq * 0.6, at + dur);
  g.gain.setValueAtTime(0.0001, at);
  g.gain.exponentialRampToValueAtTime(gain, at + 0.005);
  g.gain.exponentialRampToValueAtTime(0.0001, at + dur);
  o.connect(g).connect(ctx.destination);
  o.start(at);
  o.stop(at + dur + 0.02);
}

/** A short wooden click for a move; a lower double knock for a capture (one per piece, up to 3). */
export function playSound(kind, pieces = 1) {
  counts[kind] = (counts[kind] || 0) + 1;
  if (!prefs.sound) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    if (audio.state === 'suspended') audio.resume();
    const now = audio.currentTime + 0.01;
    if (kind === 'capture') {
      for (let i = 0; i < Math.min(Math.max(pieces, 1), 3); i++) {
        tone(audio, now + i * 0.09, 330, 0.09, 0.35, 'triangle');
        tone(audio, now + i * 0.09 + 0.03, 190, 0.12, 0.3, 'triangle');
      }
    } else {
      tone(audio, now, 620, 0.06, 0.3, 'triangle');
    }
  } catch { /* no audio here: stay silent */ }
}

/* ---------- the settings dialog ---------- */

const FIELDS = {
  'board-theme': ['board', 'value'],
  'piece-set': ['pieces', 'value'],
  'show-coords': ['coords', 'checked'],
  'show-numbers': ['numbers', 'checked'],
  sound: ['sound', 'checked'],
};

function syncForm() {
  for (const [field, [key, prop]] of Object.entries(FIELDS)) {
    const el = document.querySelector(`[data-dialog="settings"] [data-field="${field}"]`);
    if (el) el[prop] = prefs[key];
  }
}

function install() {
  apply();
  syncForm();
  for (const [field, [key, prop]] of Object.entries(FIELDS)) {
    const el = document.querySelector(`[data-dialog="settings"] [data-field="${field}"]`);
    el?.addEventListener('change', () => {
      setPref(key, el[prop]);
      // A click on the switch is the user gesture that lets the browser play sound.
      if (key === 'sound' && el.checked) playSound('move');
    });
  }
  const dlg = document.querySelector('[data-dialog="settings"]');
  document.querySelector('[data-action="settings"]')?.addEventListener('click', () => {
    syncForm();
    if (dlg && !dlg.open) dlg.showModal();
  });
}

window.damspel = Object.assign(window.damspel || {}, { sounds: counts, prefs });
install();
