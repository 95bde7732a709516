// The mailbox timeline of the Agent Mind view (000 §9): one row per mailbox
// item, newest first (by commit order, `seq`). A row expands to show the
// item's text, its channel and conversation (a link to the channel view),
// the delivery outcomes of the channel messages it holds (deliveries.js),
// its decision badges, the items merged into it (with their
// original text and senders) or the item it was merged into, its activity
// summary and, loaded on demand, its activity log, where a send's tool_end
// line shows the receipt's outcomes. A parked item links the approvals it
// waits on.
//
// Rows are keyed by item id: a row is created once and updated in place, so
// a live event, a reconnect or a reload never makes a duplicate. Details are
// built only when a row is open, so 2,000 rows stay cheap.

import { api, agentPath, query } from './api.js';
import { waitingOn } from './approval_card.js';
import {
  STATUS_LABELS, clip, compactNumber, formatDuration, h, priorityText, replaceChildren,
  statusChip, timeOfDay, uid,
} from './dom.js';
import { DeliveryRecords, channelMessagesOf, deliverySection, toolReceipt } from './deliveries.js';
import { messageOf } from './notices.js';
import { channelHash, channelLink, conversationCode } from './receipts.js';
import { typeBadge } from './types.js';

/** Sort key: commit order; an item not yet committed (seq 0) sorts on top. */
export function keyOf(item) {
  return item.seq > 0 ? item.seq : Number.MAX_SAFE_INTEGER;
}

export class Timeline {
  /**
   * agentName: whose items. onExpandStale(id): a row without its activity was
   * opened (refresh it); onMissing(id): a merge partner is not loaded.
   */
  constructor(agentName, { onExpandStale, onMissing } = {}) {
    this.agentName = agentName;
    this.onExpandStale = onExpandStale;
    this.onMissing = onMissing;
    this.records = new Map();
    // Delivery records of channel messages: a fetched one repaints the open rows.
    this.receipts = new DeliveryRecords(() => this.paintOpen());
    this.order = []; // records, key descending
    this.list = h('ol', { class: 'timeline-rows', 'aria-label': 'Mailbox timeline, newest first' });
    this.el = this.list;
  }

  get size() {
    return this.order.length;
  }

  has(id) {
    return this.records.has(id);
  }

  get(id) {
    return this.records.get(id);
  }

  /** The smallest key shown (the oldest row), or null when empty. */
  minKey() {
    return this.order.length ? this.order[this.order.length - 1].key : null;
  }

  ids() {
    return this.order.map((record) => record.item.id);
  }

  clear() {
    this.records.clear();
    this.order = [];
    this.list.replaceChildren();
  }

  /**
   * Add or update the row of `item` (a MailboxItem dict). `decisions` and
   * `activity` (from the mailbox listing) replace what the row had; without
   * them the row keeps its own.
   */
  upsert(item, { decisions, activity } = {}) {
    let record = this.records.get(item.id);
    const key = keyOf(item);
    if (!record) {
      record = { item, key, decisions: [], activity: null, open: false, logs: null, el: null };
      this.records.set(item.id, record);
      this.build(record);
      record.key = key;
      this.insert(record);
    } else {
      record.item = item;
      if (record.key !== key) {
        this.detach(record);
        record.key = key;
        this.insert(record);
      }
    }
    if (decisions) record.decisions = decisions.slice();
    if (activity !== undefined) record.activity = activity;
    this.paint(record);
  }

  remove(id) {
    const record = this.records.get(id);
    if (!record) return;
    this.detach(record);
    this.records.delete(id);
    record.el.remove();
  }

  /** Record a decision (live event) on its item's row, once. */
  addDecision(decision) {
    const record = this.records.get(decision.mailboxItemId);
    if (!record || record.decisions.some((d) => d.id === decision.id)) return;
    record.decisions.push(decision);
    this.paint(record);
  }

  // ------------------------------------------------------------ ordering

  indexFor(key) {
    // First index whose key is smaller than `key` (keys descending).
    let lo = 0;
    let hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.order[mid].key >= key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(record) {
    const index = this.indexFor(record.key);
    const before = this.order[index];
    this.order.splice(index, 0, record);
    this.list.insertBefore(record.el, before ? before.el : null);
  }

  detach(record) {
    let index = this.indexFor(record.key) - 1;
    while (index >= 0 && this.order[index] !== record) index -= 1;
    if (index < 0) index = this.order.indexOf(record);
    if (index >= 0) this.order.splice(index, 1);
  }

  // ------------------------------------------------------------ rendering

  build(record) {
    const detailId = uid('item-detail');
    const head = h('button', {
      type: 'button', class: 'row-head', 'aria-expanded': 'false', 'aria-controls': detailId,
    });
    const detail = h('div', { class: 'row-detail', id: detailId, hidden: true });
    record.head = head;
    record.detail = detail;
    record.el = h('li', { class: 'row', dataset: { id: record.item.id } }, head, detail);
    head.addEventListener('click', () => this.toggle(record));
  }

  toggle(record, open = !record.open) {
    record.open = open;
    record.head.setAttribute('aria-expanded', String(open));
    record.detail.hidden = !open;
    record.el.classList.toggle('open', open);
    if (open) {
      this.receipts.refresh(channelMessagesOf(record.item).map((ref) => ref.messageId));
      this.paintDetail(record);
      if (!record.activity && record.item.status !== 'queued') this.onExpandStale?.(record.item.id);
    }
  }

  /** Open the row of `id`, scroll to it and move keyboard focus there. */
  reveal(id) {
    const record = this.records.get(id);
    if (!record) return false;
    this.toggle(record, true);
    record.el.scrollIntoView({ block: 'center' });
    record.head.focus({ preventScroll: true });
    return true;
  }

  paint(record) {
    const { item } = record;
    const signature = [item.status, item.priority, item.summary, item.sourceType,
      record.decisions.length, item.mergedInto, mergedCount(item)].join('|');
    if (record.signature !== signature) {
      record.signature = signature;
      record.el.className = `row status-${item.status}${record.open ? ' open' : ''}`;
      record.el.dataset.status = item.status;
      const merged = mergedCount(item);
      const lastDecision = record.decisions[record.decisions.length - 1];
      replaceChildren(record.head,
        statusChip(item.status),
        typeBadge(item.sourceType),
        h('span', { class: 'summary' }, clip(item.summary || '(no text)', 120)),
        h('span', { class: 'row-meta' },
          h('span', { class: 'priority', title: 'priority' }, priorityText(item.priority)),
          merged ? h('span', { class: 'tag tag-merged' }, `+${merged} merged`) : null,
          item.mergedInto ? h('span', { class: 'tag tag-merged' }, 'merged in') : null,
          item.status === 'parked' ? h('span', { class: 'tag tag-parked' }, 'waiting for a person') : null,
          lastDecision ? h('span', { class: `decision-badge decision-${lastDecision.decisionType}` },
            lastDecision.decisionType) : null,
          h('time', { datetime: item.queuedAt || '' }, timeOfDay(item.queuedAt))));
    }
    if (record.open) this.paintDetail(record);
  }

  paintOpen() {
    for (const record of this.order) if (record.open) this.paintDetail(record);
  }

  paintDetail(record) {
    const { item, activity } = record;
    const detailSignature = [record.signature, activity ? `${activity.id}|${activity.endedAt}|${activity.totalTokens}|${activity.totalTools}` : '',
      record.logs ? record.logs.state : '', this.receipts.version].join('#');
    if (record.detailSignature === detailSignature) return;
    record.detailSignature = detailSignature;
    const parts = [];
    const meta = item.metadata || {};
    const { channelKey, conversationId } = channelOf(item);
    parts.push(h('dl', { class: 'facts' },
      fact('Status', STATUS_LABELS[item.status] || item.status),
      fact('Priority', priorityText(item.priority)),
      meta.senderName || meta.senderId ? fact('From', meta.senderName || meta.senderId) : null,
      channelKey ? fact('Channel', channelLink(channelKey)) : null,
      channelKey && conversationId
        ? fact('Conversation', h('a', {
          class: 'conversation-link', href: channelHash(channelKey, conversationId),
          title: `Show conversation ${conversationId} in the channel view`,
        }, conversationCode(conversationId)))
        : null,
      fact('Queued', timeOfDay(item.queuedAt)),
      item.startedAt ? fact('Started', timeOfDay(item.startedAt)) : null,
      item.completedAt ? fact('Ended', timeOfDay(item.completedAt)) : null,
      item.attempt > 1 ? fact('Attempt', String(item.attempt)) : null,
      item.reason ? fact('Reason', item.reason) : null,
      item.status === 'parked' && waitingOn(item) ? fact('Waiting on', waitingOn(item)) : null,
      fact('Id', h('code', null, item.id))));
    const content = item.payload && typeof item.payload.content === 'string' ? item.payload.content : '';
    const messages = item.payload && Array.isArray(item.payload.messages) ? item.payload.messages : [];
    if (messages.length > 1) {
      parts.push(h('section', { class: 'merged-originals' },
        h('h3', null, `Merged from ${messages.length} items (originals)`),
        h('ol', null, messages.map((message) => h('li', { class: 'original' },
          h('div', { class: 'original-head' },
            typeBadge(message.sourceType || item.sourceType), ' ',
            h('span', { class: 'sender' }, message.senderName || message.senderId || 'unknown'), ' ',
            h('time', { datetime: message.timestamp || '' }, timeOfDay(message.timestamp)), ' ',
            message.mailboxItemId && message.mailboxItemId !== item.id
              ? this.jumpButton(message.mailboxItemId, 'show original') : null),
          h('p', { class: 'original-text' }, clip(message.content, 600)))))));
    } else if (content) {
      parts.push(h('p', { class: 'content' }, clip(content, 2000)));
    }
    parts.push(deliverySection(item, this.agentName, this.receipts));
    if (item.mergedInto) {
      parts.push(h('p', { class: 'merged-into' }, 'Merged into ', h('code', null, item.mergedInto), ' ',
        this.jumpButton(item.mergedInto, 'show it')));
    }
    parts.push(h('section', { class: 'decisions' },
      h('h3', null, 'Decisions'),
      record.decisions.length
        ? h('ul', null, record.decisions.map((decision) => h('li', null,
          h('span', { class: `decision-badge decision-${decision.decisionType}` }, decision.decisionType), ' ',
          h('span', { class: 'reasoning' }, decision.reasoning || ''), ' ',
          h('time', { datetime: decision.createdAt || '' }, timeOfDay(decision.createdAt)))))
        : h('p', { class: 'muted' }, 'No decisions recorded yet.')));
    parts.push(this.activitySection(record));
    replaceChildren(record.detail, parts);
  }

  activitySection(record) {
    const { activity } = record;
    if (!activity) {
      return h('section', { class: 'activity' }, h('h3', null, 'Activity'),
        h('p', { class: 'muted' }, record.item.status === 'queued' ? 'Not started yet.' : 'No activity recorded.'));
    }
    const seconds = activity.endedAt && activity.startedAt
      ? (Date.parse(activity.endedAt) - Date.parse(activity.startedAt)) / 1000 : null;
    const summary = h('p', { class: 'activity-summary' },
      h('span', { class: 'activity-label' }, activity.label || activity.type), ' · ',
      `${compactNumber(activity.totalTokens)} tokens`, ' · ',
      `${activity.totalTools} ${activity.totalTools === 1 ? 'tool' : 'tools'}`,
      seconds !== null ? ` · ${formatDuration(seconds)}` : ' · running',
      activity.success === false ? h('span', { class: 'tag tag-failed' }, 'failed') : null);
    const logs = record.logs;
    let body;
    if (!logs) {
      body = h('button', { type: 'button', class: 'link-button load-logs', onclick: () => this.loadLogs(record) },
        'Load activity log');
    } else if (logs.state === 'loading') {
      body = h('p', { class: 'muted', role: 'status' }, 'Loading the activity log…');
    } else if (logs.state === 'error') {
      body = h('p', { class: 'load-error', role: 'alert' }, `Could not load the activity log: ${logs.message} `,
        h('button', { type: 'button', class: 'link-button', onclick: () => this.loadLogs(record) }, 'Try again'));
    } else if (!logs.entries.length) {
      body = h('p', { class: 'muted' }, 'The activity log is empty.');
    } else {
      body = h('ol', { class: 'activity-logs' }, logs.entries.map((entry) => h('li', { class: `log log-${entry.type}` },
        h('span', { class: 'log-type' }, entry.type), ' ',
        h('span', { class: 'log-content' }, clip(entry.content, 1000)),
        toolReceipt(entry, this.receipts))));
    }
    return h('section', { class: 'activity' }, h('h3', null, 'Activity'), summary, body);
  }

  async loadLogs(record) {
    if (!record.activity) return;
    record.logs = { state: 'loading' };
    this.paintDetail(record);
    try {
      const data = await api(agentPath(this.agentName, `/activity-logs${query({ activityId: record.activity.id })}`));
      record.logs = { state: 'loaded', entries: data.logs || [] };
    } catch (error) {
      record.logs = { state: 'error', message: messageOf(error) };
    }
    if (this.records.get(record.item.id) === record) this.paintDetail(record);
  }

  jumpButton(id, label) {
    return h('button', {
      type: 'button',
      class: 'link-button jump',
      dataset: { target: id },
      onclick: () => {
        if (!this.reveal(id)) this.onMissing?.(id);
      },
    }, label);
  }
}

function fact(name, value) {
  return [h('dt', null, name), h('dd', null, value)];
}

/** The channel a delivered channel message came from (payload.extra, 000 §11.1); nulls otherwise. */
function channelOf(item) {
  const extra = item.payload && item.payload.extra;
  if (!extra || typeof extra !== 'object' || typeof extra.channelKey !== 'string' || !extra.channelKey) {
    return { channelKey: null, conversationId: null };
  }
  const conversation = typeof extra.conversationId === 'string' && extra.conversationId ? extra.conversationId : null;
  return { channelKey: extra.channelKey, conversationId: conversation };
}

function mergedCount(item) {
  const ids = item.payload && item.payload.mergedItemIds;
  return Array.isArray(ids) ? ids.length : 0;
}
