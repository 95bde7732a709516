// Pieces shared by the spawn-tree pages (seed 002) and the pages that link to
// them: the run state badge of a retained agent (idle, running, waiting,
// stopped: always its name, colour is never the only signal), the slots line
// of a tree ("2 / 3 slots in use, held by /root/ada, /root/bob"), and the
// page addresses of a tree and of one agent in it.

import { h } from './dom.js';

export const RUN_STATES = ['idle', 'running', 'waiting', 'stopped'];

export const RUN_STATE_LABELS = {
  idle: 'Idle',
  running: 'Running',
  waiting: 'Waiting',
  stopped: 'Stopped',
};

export const RUN_STATE_HINTS = {
  idle: 'no turn, nothing waking it',
  running: 'in a turn, holding a slot',
  waiting: 'has mail, waits for a free slot',
  stopped: 'its loop is stopped; mail waits',
};

export const OUTCOME_LABELS = { completed: 'Completed', errored: 'Errored', interrupted: 'Interrupted' };

/** The page of a tree, optionally with one of its agents selected. */
export function treeHash(treeId, agentId = null) {
  const path = `#/trees/${encodeURIComponent(treeId)}`;
  return agentId && agentId !== treeId ? `${path}?agent=${encodeURIComponent(agentId)}` : path;
}

/** A retained agent's run state as a badge: its name, with a hint as its title. */
export function runBadge(state) {
  const value = RUN_STATES.includes(state) ? state : 'idle';
  return h('span', { class: `run-badge run-${value}`, dataset: { state: value }, title: RUN_STATE_HINTS[value] },
    h('span', { class: 'run-dot', 'aria-hidden': 'true' }),
    h('span', { class: 'run-text' }, RUN_STATE_LABELS[value]));
}

/** "2 / 3" for a tree's slots. */
export function slotsText(inUse, capacity) {
  return `${inUse ?? 0} / ${capacity ?? 0}`;
}

/**
 * A tree's slots as a meter (one box per slot, filled when held) and a line:
 * "2 / 3 slots in use, held by /root/ada, /root/bob", then who waits for one.
 * tree: {capacity, slotsInUse, holders, reserved, waiting}.
 */
export function slotsBlock(tree) {
  const capacity = Math.max(0, Math.min(tree.capacity || 0, 256));
  const inUse = tree.slotsInUse || 0;
  const boxes = [];
  for (let n = 0; n < Math.min(capacity, 32); n += 1) {
    boxes.push(h('span', { class: `slot${n < inUse ? ' slot-held' : ''}`, 'aria-hidden': 'true' }));
  }
  const holders = tree.holders || [];
  const waiting = tree.waiting || [];
  const reserved = tree.reserved || [];
  return h('div', { class: 'slots', dataset: { inUse: String(inUse), capacity: String(capacity) } },
    h('span', { class: 'slot-meter' }, boxes),
    h('span', { class: 'slots-count' }, slotsText(inUse, capacity)),
    h('span', { class: 'slots-label' }, ' slots in use'),
    holders.length ? h('span', { class: 'slots-holders' }, ', held by ', pathList(holders)) : null,
    reserved.length ? h('span', { class: 'slots-reserved' }, '; reserved for ', pathList(reserved)) : null,
    waiting.length ? h('span', { class: 'slots-waiting' }, '; waiting: ', pathList(waiting)) : null);
}

function pathList(paths) {
  const shown = paths.slice(0, 20);
  const parts = [];
  shown.forEach((path, index) => {
    if (index) parts.push(', ');
    parts.push(h('code', { class: 'tree-path' }, path));
  });
  if (paths.length > shown.length) parts.push(` and ${paths.length - shown.length} more`);
  return parts;
}

/**
 * A RESULT item's own text, without its "[result from /root/ada: completed]"
 * header (the row shows those facts). A RESULT that other RESULTs merged into
 * while they waited holds all their texts; its own is its entry in
 * payload.messages.
 */
export function resultText(item) {
  const payload = (item && item.payload) || {};
  let content = payload.content;
  const messages = Array.isArray(payload.messages) ? payload.messages : [];
  if (messages.length > 1) {
    const own = messages.find((m) => m && m.mailboxItemId === item.id) || messages[0];
    if (own && typeof own.content === 'string') content = own.content;
  }
  return String(content ?? '').replace(/^\[result from [^\]\n]*\]\n?/, '');
}
