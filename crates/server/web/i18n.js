// Interface languages. The strings live in one catalogue per language, /i18n/{code}.json (the
// files of crates/server/web/i18n/, with exactly the keys of en.json); the server lists them at
// /i18n/languages.json. docs/translating.md says how to add one.
//
// The page marks its static strings with attributes, and applyI18n() fills them in:
//   data-i18n="key" (text), data-i18n-title, data-i18n-placeholder, data-i18n-aria-label.
// Scripts call t('key', {param: value}); "{param}" in a string is replaced by the value.
// The language is remembered in localStorage (damspel.lang); by default it is the first of the
// browser's languages that has a catalogue, else English. Changing it fires `damspel:lang` on
// document so that the scripts redraw what they wrote.
//
// Test hooks: <html lang> is the language shown; the picker is [data-field="lang"].

const STORE = 'damspel.lang';
const ATTRS = ['title', 'placeholder', 'aria-label'];

const I = { lang: 'en', en: {}, cur: {}, langs: [{ code: 'en', name: 'English' }] };

/** The string of `key` in the current language (English if it lacks one, the key if none). */
export function t(key, params) {
  let s = I.cur[key] ?? I.en[key] ?? key;
  if (params) s = s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
  return s;
}

/** The language shown (a code such as "tr"). */
export function lang() {
  return I.lang;
}

async function catalogue(code) {
  const r = await fetch(`/i18n/${encodeURIComponent(code)}.json`);
  if (!r.ok) throw new Error(`no catalogue for ${code}`);
  return r.json();
}

/** Fills in every marked element under `root`. */
export function applyI18n(root = document) {
  if (!I.en._name) return; // no catalogue came: keep the English the page is written in
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.getAttribute('data-i18n'));
  for (const a of ATTRS) {
    for (const el of root.querySelectorAll(`[data-i18n-${a}]`)) el.setAttribute(a, t(el.getAttribute(`data-i18n-${a}`)));
  }
}

function stored() {
  try {
    return localStorage.getItem(STORE);
  } catch {
    return null; // private mode
  }
}

function preferred() {
  const codes = I.langs.map((l) => l.code);
  const saved = stored();
  if (saved && codes.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || '']) {
    const base = String(l).toLowerCase().split('-')[0];
    if (codes.includes(base)) return base;
  }
  return 'en';
}

/** Shows the page in language `code` and remembers the choice. */
export async function setLang(code, remember = true) {
  let cur = I.en;
  if (code !== 'en') {
    try {
      cur = await catalogue(code);
    } catch {
      code = 'en';
    }
  }
  I.lang = code;
  I.cur = cur;
  if (remember) {
    try {
      localStorage.setItem(STORE, code);
    } catch { /* private mode */ }
  }
  document.documentElement.lang = code;
  const pick = document.querySelector('[data-field="lang"]');
  if (pick) pick.value = code;
  applyI18n();
  document.dispatchEvent(new CustomEvent('damspel:lang', { detail: code }));
}

function installPicker() {
  const pick = document.querySelector('[data-field="lang"]');
  if (!pick) return;
  pick.innerHTML = '';
  for (const l of I.langs) {
    const o = document.createElement('option');
    o.value = l.code;
    o.textContent = l.name;
    pick.appendChild(o);
  }
  pick.value = I.lang;
  pick.addEventListener('change', () => setLang(pick.value));
}

/** Resolves once the catalogues are loaded and the page is in its language. */
export const ready = (async () => {
  try {
    I.en = await catalogue('en');
    const r = await fetch('/i18n/languages.json');
    if (r.ok) I.langs = await r.json();
  } catch { /* the page stays in the English it is written in */ }
  installPicker();
  await setLang(preferred(), false);
})();
