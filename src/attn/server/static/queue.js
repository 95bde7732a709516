// The queue panel of the Agent Mind view (000 §9, UI-02): the queued items
// by priority then arrival, the deferred ones, and the parked ones (000
// §13.2): each waits on a person's answer, and links the approval card it
// waits on. Fed by the /mind snapshot (queue, deferred, parked) and the
// live item events (through MindView.applyItem).

import { waitingOn } from './approval_card.js';
import { clip, h, priorityText, replaceChildren, statusChip } from './dom.js';
import { keyOf } from './timeline.js';
import { typeBadge } from './types.js';

const SHOWN = 50;

export class QueuePanel {
  constructor() {
    this.queue = new Map();
    this.deferred = new Map();
    this.parked = new Map();
    this.unlisted = 0;
    this.unlistedDeferred = 0;
    this.unlistedParked = 0;
    this.list = h('ol', { class: 'queue-list', 'aria-labelledby': 'queue-heading' });
    this.empty = h('p', { class: 'muted' }, 'Nothing is waiting.');
    this.more = h('p', { class: 'muted', hidden: true });
    this.deferredHeading = h('h3', { id: 'deferred-heading', hidden: true }, 'Deferred');
    this.deferredList = h('ol', { class: 'queue-list deferred-list', 'aria-labelledby': 'deferred-heading' });
    this.parkedHeading = h('h3', { id: 'parked-heading', hidden: true }, 'Parked');
    this.parkedList = h('ol', { class: 'queue-list parked-list', 'aria-labelledby': 'parked-heading' });
    this.el = h('section', { class: 'queue panel', 'aria-labelledby': 'queue-heading' },
      h('h2', { id: 'queue-heading' }, 'Queue'),
      this.empty, this.list, this.more, this.deferredHeading, this.deferredList, this.parkedHeading, this.parkedList);
  }

  /** Queued items shown or not (the /mind listing holds at most 1,000). */
  get depth() {
    return this.queue.size + (this.unlisted || 0);
  }

  get(id) {
    return this.queue.get(id) || this.deferred.get(id) || this.parked.get(id);
  }

  /** Take the queue and deferred lists of a /mind snapshot. */
  snapshot(mind) {
    this.queue = new Map((mind.queue || []).map((item) => [item.id, item]));
    this.deferred = new Map((mind.deferred || []).map((item) => [item.id, item]));
    this.unlisted = Math.max(0, (mind.queueDepth || 0) - this.queue.size);
    this.unlistedDeferred = Math.max(0, (mind.deferredCount || 0) - this.deferred.size);
    this.parked = new Map((mind.parked || []).map((item) => [item.id, item]));
    this.unlistedParked = Math.max(0, (mind.parkedCount || 0) - this.parked.size);
  }

  /** Put an item (a live event or a listing row) where its status says. */
  apply(item) {
    for (const [status, map] of [['queued', this.queue], ['deferred', this.deferred], ['parked', this.parked]]) {
      if (item.status === status) map.set(item.id, item);
      else map.delete(item.id);
    }
  }

  render() {
    const queued = [...this.queue.values()].sort((a, b) => a.priority - b.priority || keyOf(a) - keyOf(b));
    const shown = queued.slice(0, SHOWN);
    replaceChildren(this.list, shown.map((item) => entry(item)));
    this.empty.hidden = queued.length > 0;
    const more = queued.length - shown.length + (this.unlisted || 0);
    this.more.hidden = more <= 0;
    this.more.textContent = `and ${more} more`;
    const deferred = [...this.deferred.values()].sort((a, b) => keyOf(a) - keyOf(b));
    replaceChildren(this.deferredList, deferred.slice(0, SHOWN).map((item) => entry(item)));
    this.deferredHeading.hidden = deferred.length === 0;
    this.deferredHeading.textContent = `Deferred (${deferred.length + (this.unlistedDeferred || 0)})`;
    const parked = [...this.parked.values()].sort((a, b) => keyOf(a) - keyOf(b));
    replaceChildren(this.parkedList, parked.slice(0, SHOWN).map((item) => entry(item)));
    this.parkedHeading.hidden = parked.length === 0;
    this.parkedHeading.textContent = `Parked, waiting for a person (${parked.length + (this.unlistedParked || 0)})`;
  }
}

function entry(item) {
  const shownStatus = item.status === 'deferred' || item.status === 'parked';
  return h('li', { class: `queue-entry status-${item.status}`, dataset: { id: item.id, status: item.status } },
    typeBadge(item.sourceType),
    h('span', { class: 'priority' }, priorityText(item.priority)),
    h('span', { class: 'summary' }, clip(item.summary || '(no text)', 100)),
    shownStatus ? statusChip(item.status) : null,
    item.status === 'parked' ? waitingOn(item) : null,
    item.reason && item.status === 'deferred' ? h('span', { class: 'reason muted' }, clip(item.reason, 80)) : null);
}
