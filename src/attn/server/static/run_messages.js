// The mailbox of one run (seed 003, FILE-01, FILE-12): the inbox (to the
// workers: messages, responses, follow-ups), the outbox (from them:
// messages and supervisor contacts) and the steering file (steers, nudges),
// each message with its status badge and, until it is acknowledged, an Ack
// button. Fed by GET …/messages per box and kept current by the live
// `filebox:message` and `filebox:status` events; a status only moves
// forward, so an older copy (a page read before an event) never undoes one.
// Bodies come from workers: shown as text only.

import { api, query } from './api.js';
import { clip, h, timeOfDay } from './dom.js';
import { messageOf, notify } from './notices.js';
import { messageBadge, newerMessage, runPath, syncChildren } from './run_parts.js';

/** The boxes, in the order they are shown, with what each holds. */
export const BOXES = [
  { box: 'outbox', label: 'Outbox', hint: 'from the workers: messages and their questions' },
  { box: 'inbox', label: 'Inbox', hint: 'to the workers: messages, responses and follow-ups' },
  { box: 'steering', label: 'Steering', hint: 'to the workers: steers and nudges' },
];
/** Newest messages read per box; the panel keeps at most this many per box. */
const PER_BOX = 200;

const KIND_LABELS = {
  message: 'message', response: 'response', steer: 'steer', follow_up: 'follow-up', nudge: 'nudge', contact: 'question',
};

export class MessagePanel {
  constructor(runId) {
    this.runId = runId;
    this.generation = 0;
    this.messages = new Map(); // id → message, every box
    this.heard = null; // messages told by events while a load is in flight
    this.rows = new Map(); // id → {key, el}
    this.lists = new Map();
    this.headings = new Map();
    this.error = h('p', { class: 'load-error', role: 'alert', hidden: true });
    const groups = BOXES.map(({ box, label, hint }) => {
      const heading = h('h3', { id: `box-${box}-heading` }, label);
      const list = h('ol', { class: 'msg-list', dataset: { box }, 'aria-labelledby': `box-${box}-heading` });
      const empty = h('p', { class: 'muted msg-empty' }, 'No messages.');
      this.headings.set(box, heading);
      this.lists.set(box, { list, empty });
      return h('section', { class: 'msg-box', dataset: { box } }, heading, h('p', { class: 'hint' }, hint), empty, list);
    });
    this.el = h('section', { class: 'run-messages panel', 'aria-labelledby': 'run-messages-heading' },
      h('h2', { id: 'run-messages-heading' }, 'Messages'), this.error, h('div', { class: 'msg-boxes' }, groups));
  }

  async load() {
    const generation = ++this.generation;
    this.heard = new Map();
    try {
      const pages = await Promise.all(BOXES.map(({ box }) => api(runPath(this.runId, `/messages${query({ box, limit: PER_BOX })}`))));
      if (generation !== this.generation) return;
      const next = new Map();
      for (const page of pages) for (const m of page.messages || []) next.set(m.id, newerMessage(this.messages.get(m.id), m));
      // What events told meanwhile is at least as new as the pages.
      for (const [id, m] of this.heard) next.set(id, newerMessage(next.get(id), m));
      this.messages = next;
      this.heard = null;
      this.error.hidden = true;
      this.render();
    } catch (error) {
      if (generation !== this.generation) return;
      this.heard = null;
      this.error.textContent = `Could not load the messages: ${messageOf(error)}`;
      this.error.hidden = false;
    }
  }

  /** Take a message from an event or an answer (a newer status wins). Returns whether it changed. */
  apply(message) {
    if (!message || typeof message.id !== 'string' || message.runId !== this.runId) return false;
    this.heard?.set(message.id, newerMessage(this.heard.get(message.id), message));
    const before = this.messages.get(message.id);
    const after = newerMessage(before, message);
    if (before === after) return false;
    this.messages.set(message.id, after);
    return true;
  }

  render() {
    const byBox = new Map(BOXES.map(({ box }) => [box, []]));
    for (const m of this.messages.values()) (byBox.get(m.box) || byBox.get('inbox')).push(m);
    const shown = new Set();
    for (const [box, messages] of byBox) {
      // Newest first; keep the newest PER_BOX.
      messages.sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)) || String(b.id).localeCompare(String(a.id)));
      const kept = messages.slice(0, PER_BOX);
      for (const m of messages.slice(PER_BOX)) this.messages.delete(m.id);
      const { list, empty } = this.lists.get(box);
      const nodes = kept.map((m) => this.row(m));
      kept.forEach((m) => shown.add(m.id));
      syncChildren(list, nodes);
      empty.hidden = kept.length > 0;
      const unacked = kept.filter((m) => m.status !== 'acknowledged').length;
      this.headings.get(box).textContent = `${BOXES.find((b) => b.box === box).label} (${kept.length}${unacked ? `, ${unacked} not acknowledged` : ''})`;
    }
    for (const id of [...this.rows.keys()]) if (!shown.has(id)) this.rows.delete(id);
  }

  row(m) {
    const key = `${m.status}|${m.acknowledgedAt || ''}|${m.deliveredAt || ''}`;
    const known = this.rows.get(m.id);
    if (known && known.key === key) return known.el;
    const el = h('li', { class: `msg-row msg-row-${m.status}`, dataset: { id: m.id, status: m.status, kind: m.kind || 'message', box: m.box } },
      h('div', { class: 'msg-head' },
        h('time', { class: 'msg-time', datetime: m.createdAt || '', title: m.createdAt || '' }, timeOfDay(m.createdAt)),
        h('span', { class: `tag msg-kind kind-${m.kind || 'message'}` }, KIND_LABELS[m.kind] || m.kind || 'message'),
        h('span', { class: 'msg-route' }, clip(m.from, 60), ' → ', clip(m.to, 60)),
        m.priority && m.priority !== 'normal' ? h('span', { class: `msg-priority msg-priority-${m.priority}` }, `${m.priority} priority`) : null,
        messageBadge(m.status),
        m.status === 'acknowledged' ? null : h('button', {
          type: 'button', class: 'msg-ack', 'aria-label': `Ack the message: ${clip(m.body, 60)}`,
          onclick: (event) => this.acknowledge(m, event.currentTarget),
        }, 'Ack')),
      h('p', { class: 'msg-body' }, clip(m.body, 4000)));
    this.rows.set(m.id, { key, el });
    return el;
  }

  async acknowledge(m, button) {
    button.disabled = true;
    try {
      const message = await api(runPath(this.runId, `/messages/${encodeURIComponent(m.id)}/ack`), { method: 'POST' });
      const current = message && message.message ? message.message : message;
      if (this.apply(current)) this.render();
    } catch (error) {
      button.disabled = false;
      notify(`Could not acknowledge the message: ${messageOf(error)}`, 'error');
    }
  }

  destroy() {
    this.generation += 1;
  }
}
