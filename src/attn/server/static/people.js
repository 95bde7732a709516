// The people the page acts for and the kinds of notification they get
// (000 §12): GET /api/users names the people of attn.toml and the owner; the
// page reads and answers as the owner unless another person is chosen (kept
// in this browser). GET /api/notification-types gives each kind's label and
// icon; a server without that route gets the built-in table below.
// Also: the UI route a notification's `navigate` path goes to.

import { api } from './api.js';

const USER_KEY = 'attn.user';

// The built-in types of 000 §12.2, used until (or if never) the server lists them.
const BUILTIN_TYPES = {
  approval_request: { label: 'Approval Request', icon: '🔐' },
  task_created: { label: 'Task Created', icon: '📋' },
  task_completed: { label: 'Task Completed', icon: '✅' },
  task_review: { label: 'Task Review', icon: '👁️' },
  task_failed: { label: 'Task Failed', icon: '❌' },
  requirement_created: { label: 'Requirement Proposed', icon: '📝' },
  requirement_decision: { label: 'Requirement Decision', icon: '⚖️' },
  agent_report: { label: 'Agent Report', icon: '📊' },
  system: { label: 'System', icon: '⚙️' },
};

let users = [];
let owner = null;
let chosen = localStorage.getItem(USER_KEY) || null;
const types = new Map(Object.entries(BUILTIN_TYPES));
const listeners = new Set();

/** Load the people and the notification types; listeners run when the person changed. */
export async function loadPeople() {
  const before = currentUser();
  const [people, kinds] = await Promise.allSettled([api('api/users'), api('api/notification-types')]);
  if (people.status === 'fulfilled' && people.value) {
    users = Array.isArray(people.value.users) ? people.value.users : [];
    const named = people.value.owner;
    owner = (typeof named === 'string' ? named : named && named.id) || (users.find((u) => u.owner) || {}).id || null;
  }
  if (kinds.status === 'fulfilled' && kinds.value && Array.isArray(kinds.value.types)) {
    for (const kind of kinds.value.types) {
      if (kind && typeof kind.name === 'string') types.set(kind.name, kind);
    }
  }
  if (currentUser() !== before) listeners.forEach((listener) => listener());
  if (people.status === 'rejected') throw people.reason;
}

/** Every person the server knows: [{id, name, owner}]. */
export function allUsers() {
  return users.slice();
}

/** The id of the person the page acts for: the chosen one if known, else the owner. */
export function currentUser() {
  if (chosen && (!users.length || users.some((u) => u.id === chosen))) return chosen;
  return owner;
}

/** A person's display name ("You" for the current person). */
export function personName(id, { you = true } = {}) {
  if (!id) return 'someone';
  if (you && id === currentUser()) return 'You';
  if (id === 'system') return 'attn (system)';
  const found = users.find((u) => u.id === id);
  return found && found.name ? found.name : id;
}

/** Act as another person from now on (kept in this browser). */
export function setCurrentUser(id) {
  chosen = id || null;
  if (chosen) localStorage.setItem(USER_KEY, chosen);
  else localStorage.removeItem(USER_KEY);
  listeners.forEach((listener) => listener());
}

/** Run `listener()` when the current person changes; returns an unsubscribe function. */
export function onPersonChanged(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A notification type's {label, icon}; an unknown type gets its name and a bell. */
export function notificationType(name) {
  const known = types.get(name);
  return { label: (known && known.label) || name || 'Notification', icon: (known && known.icon) || '🔔' };
}

// Paths of the UI's own pages (000 §12.3's navigate targets are app paths).
const PAGES = /^\/(approvals|agents|channels|trees|runs|work)(\/|\?|$)/;

/**
 * The UI address (`#/…`) of a navigate path, e.g. "/approvals/apr_1" →
 * "#/approvals/apr_1", "/runs/run_1" → "#/runs/run_1" (a worker_contact),
 * "/work?task=t1" → "#/work?task=t1"; null for a path
 * the UI has no page for (never an outside address).
 */
export function routeOfPath(path) {
  if (typeof path !== 'string' || !path.startsWith('/') || path.startsWith('//')) return null;
  return PAGES.test(path) ? `#${path}` : null;
}

/** The UI address of the chat with an agent (open_chat). */
export function chatRoute(agentId) {
  return `#/agents/${encodeURIComponent(agentId)}?chat=main`;
}

/** The approval ids a parked item waits on, from its reason ("parked: waiting on apr_…"). */
export function approvalIdsOf(item) {
  if (!item || item.status !== 'parked' || typeof item.reason !== 'string') return [];
  return [...new Set(item.reason.match(/apr_[A-Za-z0-9]+/g) || [])];
}
