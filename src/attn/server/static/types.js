// The mailbox type registry as served by GET /api/types (000 §3, §9 principle
// 3): labels, icons, categories (and a colour when a type has one) are read
// from here at render time. A type the page has not seen (registered at run
// time) triggers a reload of the registry, and every listener re-renders.

import { api } from './api.js';
import { h, throttle } from './dom.js';

const byName = new Map();
let categories = [];
const listeners = new Set();
let loaded = false;

/** Load (or reload) the registry; listeners run when something changed. */
export async function loadTypes() {
  const data = await api('api/types');
  const before = JSON.stringify([...byName.values()]);
  byName.clear();
  const seen = [];
  for (const descriptor of data.types || []) {
    byName.set(descriptor.name, descriptor);
    if (descriptor.category && !seen.includes(descriptor.category)) seen.push(descriptor.category);
  }
  // The seed's order (000 §3.3) for its four categories; any other category after them.
  categories = [...seen].sort((a, b) => rank(a) - rank(b) || seen.indexOf(a) - seen.indexOf(b));
  loaded = true;
  if (JSON.stringify([...byName.values()]) !== before) listeners.forEach((listener) => listener());
}

const SEED_ORDER = ['interaction', 'task', 'notification', 'system'];

function rank(category) {
  const index = SEED_ORDER.indexOf(category);
  return index < 0 ? SEED_ORDER.length : index;
}

const reloadSoon = throttle(() => {
  loadTypes().catch(() => {});
}, 1000);

/** The descriptor of a type; an unknown name gets a placeholder and a registry reload. */
export function typeOf(name) {
  const known = byName.get(name);
  if (known) return known;
  if (loaded) reloadSoon();
  return { name, label: name, icon: '•', category: null, placeholder: true };
}

/** Every type, in registry order. */
export function allTypes() {
  return [...byName.values()];
}

/** Categories in the order the registry first names them (000 §3.3). */
export function allCategories() {
  return [...categories];
}

/** "interaction" → "Interaction". */
export function categoryLabel(category) {
  if (!category) return 'Other';
  return category.charAt(0).toUpperCase() + category.slice(1).replace(/_/g, ' ');
}

/** Run `listener()` after the registry changed; returns an unsubscribe function. */
export function onTypesChanged(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A type's icon and label as one inline element (the icon is hidden from screen readers). */
export function typeBadge(name) {
  const descriptor = typeOf(name);
  const el = h('span', { class: 'type', dataset: { type: name } },
    h('span', { class: 'type-icon', 'aria-hidden': 'true' }, descriptor.icon || '•'),
    h('span', { class: 'type-label' }, descriptor.label || name));
  if (descriptor.color) el.style.setProperty('--type-color', descriptor.color);
  return el;
}
