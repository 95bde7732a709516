// Small DOM and formatting helpers shared by the views. No framework: every
// view builds its elements with h() and updates them in place.

/**
 * Make an element: h('button', {class: 'x', onclick: fn}, 'text', child).
 * Attributes whose value is null, undefined or false are left out; true gives
 * an empty attribute. Children may be nodes, strings, numbers or arrays.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key === 'class') el.className = value;
      else if (key === 'text') el.textContent = value;
      else if (key === 'dataset') Object.assign(el.dataset, value);
      else if (key === 'style' && typeof value === 'object') Object.assign(el.style, value);
      else if (key.startsWith('on') && typeof value === 'function') {
        el.addEventListener(key.slice(2), value);
      } else el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Replace every child of `el` with `children`. */
export function replaceChildren(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

/** The item statuses (000 §16, and `parked`: waiting on a person, §13.2) in the order the filters show them. */
export const STATUSES = ['queued', 'processing', 'completed', 'merged', 'deferred', 'parked', 'dropped'];

/** Statuses an item never leaves (000 §6.5): a late event cannot undo them. */
export const TERMINAL = new Set(['completed', 'merged', 'dropped']);

export const STATUS_LABELS = {
  queued: 'Queued',
  processing: 'Processing',
  completed: 'Completed',
  merged: 'Merged',
  deferred: 'Deferred',
  parked: 'Parked',
  dropped: 'Dropped',
};

export const STATE_LABELS = { idle: 'Idle', focused: 'Focused', deciding: 'Deciding' };

export const PRIORITY_LABELS = ['critical', 'high', 'normal', 'low', 'background'];

/** "P1 high" for a priority number. */
export function priorityText(priority) {
  const name = PRIORITY_LABELS[priority];
  return name ? `P${priority} ${name}` : `P${priority}`;
}

/** A status chip: coloured dot plus the status's name (colour is never the only signal). */
export function statusChip(status) {
  return h('span', { class: `status-chip status-${status}`, dataset: { status } },
    h('span', { class: 'status-dot', 'aria-hidden': 'true' }),
    h('span', { class: 'status-text' }, STATUS_LABELS[status] || status));
}

/** Seconds as "8 s", "3 min 04 s", "2 h 05 min". */
export function formatDuration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  const hours = Math.floor(m / 60);
  return `${hours} h ${String(m % 60).padStart(2, '0')} min`;
}

/** Seconds since an ISO 8601 instant (0 when it is missing or in the future). */
export function secondsSince(iso) {
  if (!iso) return 0;
  const at = Date.parse(iso);
  return Number.isNaN(at) ? 0 : Math.max(0, (Date.now() - at) / 1000);
}

/** Local time of day of an ISO instant, e.g. "14:03:07"; "" when missing. */
export function timeOfDay(iso) {
  if (!iso) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  return at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** 1234 → "1.2k". */
export function compactNumber(n) {
  if (typeof n !== 'number') return '0';
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Text cut to `width` characters with an ellipsis. */
export function clip(text, width = 140) {
  const value = String(text ?? '');
  return value.length <= width ? value : `${value.slice(0, width - 1)}…`;
}

/**
 * Call `fn` at most once per `intervalMs`, and once more after the last call
 * (so the final state is always fetched). Returns the wrapped function with a
 * cancel() method.
 */
export function throttle(fn, intervalMs) {
  let last = 0;
  let timer = null;
  const wrapped = () => {
    const wait = last + intervalMs - Date.now();
    if (wait <= 0 && timer === null) {
      last = Date.now();
      fn();
    } else if (timer === null) {
      timer = setTimeout(() => {
        timer = null;
        last = Date.now();
        fn();
      }, Math.max(wait, 0));
    }
  };
  wrapped.cancel = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
  return wrapped;
}

let idCounter = 0;
/** A page-unique element id with a readable prefix. */
export function uid(prefix) {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}
