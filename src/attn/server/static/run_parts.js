// Pieces the run list (runs.js) and the run page (run_view.js) share (seed
// 003, FILE-07, FILE-08): run addresses, task and message status chips, the
// pending queues with the backpressure warning, the ownership line.
// Everything a worker or a run folder says is untrusted: it only ever goes
// into text nodes (h() and textContent), never into markup.

import { clip, h, replaceChildren } from './dom.js';

/** The UI address of one run. */
export function runHash(id) {
  return `#/runs/${encodeURIComponent(id)}`;
}

/** `api/runs/<id><rest>` with the id escaped. */
export function runPath(id, rest = '') {
  return `api/runs/${encodeURIComponent(id)}${rest}`;
}

/** `api/runs/<id>/tasks/<task>/<verb>` with both ids escaped. */
export function taskPath(id, taskId, verb) {
  return runPath(id, `/tasks/${encodeURIComponent(taskId)}/${verb}`);
}

/** Task statuses of seed 003, in the order the list counts them. */
export const TASK_STATUSES = ['waiting', 'running', 'queued', 'completed', 'failed', 'cancelled'];

const TASK_LABELS = {
  queued: 'Queued', running: 'Running', waiting: 'Waiting for you', completed: 'Completed', failed: 'Failed', cancelled: 'Cancelled',
};

/** A task's status as a chip: a dot and its name (colour is never the only signal). */
export function taskChip(status) {
  return h('span', { class: `task-chip task-${status}`, dataset: { status } },
    h('span', { class: 'task-dot', 'aria-hidden': 'true' }),
    h('span', { class: 'task-chip-text' }, TASK_LABELS[status] || status));
}

/** The three statuses of a mailbox message (FILE-01); they only move forward. */
export const MESSAGE_RANK = { queued: 0, delivered: 1, acknowledged: 2 };

const MESSAGE_LABELS = { queued: 'Queued', delivered: 'Delivered', acknowledged: 'Acknowledged' };

/** A message's status as a badge. */
export function messageBadge(status) {
  return h('span', { class: `msg-badge msg-${status}`, dataset: { status } }, MESSAGE_LABELS[status] || status);
}

/** The newer of two copies of one message: the one whose status went further. */
export function newerMessage(a, b) {
  if (!a) return b;
  if (!b) return a;
  return (MESSAGE_RANK[b.status] ?? -1) >= (MESSAGE_RANK[a.status] ?? -1) ? b : a;
}

/** The tasks of a run view as [id, task] pairs, waiting ones first, then by id. */
export function tasksOf(run) {
  const tasks = run && run.tasks && typeof run.tasks === 'object' ? Object.entries(run.tasks) : [];
  const rank = (status) => {
    const index = TASK_STATUSES.indexOf(status);
    return index < 0 ? TASK_STATUSES.length : index;
  };
  return tasks
    .filter(([, task]) => task && typeof task === 'object')
    .sort(([a, x], [b, y]) => rank(x.status) - rank(y.status) || a.localeCompare(b));
}

/** "2 waiting · 1 running" for a run's tasks; "no tasks" when it has none. */
export function taskSummary(run) {
  const counts = new Map();
  for (const [, task] of tasksOf(run)) counts.set(task.status, (counts.get(task.status) || 0) + 1);
  if (!counts.size) return [h('span', { class: 'muted' }, 'no tasks')];
  return [...counts].map(([status, n], index) => [index ? ' · ' : '',
    h('span', { class: 'task-count', dataset: { status, count: String(n) } }, taskChip(status), ` ${n}`)]);
}

/** The pending counts' line: "3 steers and 0 follow-ups waiting for the worker (at most 50 each; …)". */
function pendingCounts(p) {
  return [
    h('span', { class: 'pending-steer', dataset: { count: String(p.steer ?? 0) } }, h('strong', null, String(p.steer ?? 0)), ' steers'),
    ' and ',
    h('span', { class: 'pending-follow-up', dataset: { count: String(p.followUp ?? 0) } }, h('strong', null, String(p.followUp ?? 0)), ' follow-ups'),
    ' waiting for the worker',
    typeof p.max === 'number' ? h('span', { class: 'muted' }, ` (at most ${p.max} each; a warning above ${p.warnAbove ?? '?'})`) : null,
  ];
}

function warningText(p) {
  return typeof p.warning === 'string' && p.warning ? p.warning : null;
}

/**
 * The pending steers and follow-ups of a run (FILE-07) on the list: the
 * counts against the cap and, above the warning level, the server's warning.
 */
export function pendingBlock(pending) {
  const p = pending || {};
  const warning = warningText(p);
  return h('div', { class: `pending${warning ? ' pending-over' : ''}` },
    h('p', { class: 'pending-counts' }, pendingCounts(p)),
    warning ? h('p', { class: 'pending-warning' }, h('span', { class: 'pending-warning-icon', 'aria-hidden': 'true' }, '⚠'), ' ',
      h('strong', null, 'Backpressure: '), clip(warning, 300)) : null);
}

/**
 * The same on the run page, updated in place: the warning is an alert that
 * is announced when it appears or changes, not on every refresh.
 */
export class PendingView {
  constructor() {
    this.counts = h('p', { class: 'pending-counts' });
    this.text = h('span', null);
    this.warning = h('p', { class: 'pending-warning', role: 'alert', hidden: true },
      h('span', { class: 'pending-warning-icon', 'aria-hidden': 'true' }, '⚠'), ' ', h('strong', null, 'Backpressure: '), this.text);
    this.el = h('div', { class: 'pending' }, this.counts, this.warning);
  }

  update(pending) {
    const p = pending || {};
    replaceChildren(this.counts, pendingCounts(p));
    const warning = warningText(p);
    const text = warning ? clip(warning, 300) : '';
    if (this.text.textContent !== text) this.text.textContent = text;
    this.warning.hidden = !warning;
    this.el.classList.toggle('pending-over', Boolean(warning));
  }
}

/** The session that owns a run (FILE-08), or null when nobody does. */
export function ownerOf(run) {
  return run && typeof run.ownerSessionId === 'string' && run.ownerSessionId ? run.ownerSessionId : null;
}

/** The worker's state: alive (with its pid), exited (with its code) or never started. */
export function workerBadge(run) {
  const worker = (run && run.worker) || {};
  if (run && run.workerAlive) {
    return h('span', { class: 'worker-badge worker-alive', dataset: { alive: 'true' } },
      h('span', { class: 'task-dot', 'aria-hidden': 'true' }), `Worker alive${worker.pid ? ` (pid ${worker.pid})` : ''}`);
  }
  const text = worker.exitedAt ? `Worker exited${worker.exitCode !== null && worker.exitCode !== undefined ? ` (code ${worker.exitCode})` : ''}`
    : worker.startedAt ? 'Worker gone' : 'No worker';
  return h('span', { class: 'worker-badge worker-down', dataset: { alive: 'false' } },
    h('span', { class: 'task-dot', 'aria-hidden': 'true' }), text);
}

/** Make `parent`'s children exactly `nodes`, in order, moving only what moved (typing keeps focus). */
export function syncChildren(parent, nodes) {
  nodes.forEach((node, index) => {
    if (parent.children[index] !== node) parent.insertBefore(node, parent.children[index] || null);
  });
  while (parent.children.length > nodes.length) parent.lastElementChild.remove();
}
