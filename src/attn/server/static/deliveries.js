// Delivery records in the Agent Mind view (issue 13: receipts "shown in the
// API, the CLI and the Mind view"; 000 §11, A2A-04, A2A-06).
//
// * A received channel message (an item whose payload.extra names a channel
//   message, or a merged item whose payload.messages do) shows, once its row
//   is open, this agent's own delivery outcome, the other recipients'
//   outcomes and "partial" when some were refused. The record comes from
//   GET /api/channel-messages/{messageId}, once per message (a delivery still
//   pending is asked again the next time the row opens).
// * A message the agent sent shows on the tool_end line of its activity log
//   (agent_send_message, agent_send_group_message, agent_delegate_task): the
//   tool's result is the receipt, so its outcomes need no request. A result
//   clipped in the log is looked up by its messageId instead.
//
// The chips are those of the channel view (receipts.js). A failed request is
// shown where the record would be, with a way to try again.

import { api } from './api.js';
import { h } from './dom.js';
import { messageOf } from './notices.js';
import {
  allRefused, channelHash, channelLink, conversationCode, deliveryChip, deliveryList, isPartial,
} from './receipts.js';

/** The tools whose result is a send's receipt. */
export const SEND_TOOLS = new Set(['agent_send_message', 'agent_send_group_message', 'agent_delegate_task']);
/** Most messages of one merged item whose delivery is shown (and fetched). */
export const MAX_RECORD_LINES = 20;
/** Most message records kept in memory; the oldest is forgotten first. */
const MAX_CACHED = 500;
/** Longest message id taken from an item or a log line (ids are ~30 characters). */
const MAX_ID_CHARS = 200;

function messageIdOf(extra) {
  if (!extra || typeof extra !== 'object') return null;
  const id = extra.messageId;
  return typeof id === 'string' && id && id.length <= MAX_ID_CHARS ? id : null;
}

/**
 * The channel messages `item` holds, oldest first: one for a delivered
 * message, one per merged message (payload.messages[i].payload.extra) for a
 * merged item. Each is {messageId, sender}; entries of no channel message are
 * left out.
 */
export function channelMessagesOf(item) {
  const payload = item && item.payload && typeof item.payload === 'object' ? item.payload : {};
  const messages = Array.isArray(payload.messages) ? payload.messages : [];
  if (messages.length > 1) {
    return messages
      .map((message) => ({
        messageId: messageIdOf(message && message.payload && message.payload.extra),
        sender: (message && (message.senderName || message.senderId)) || 'unknown',
      }))
      .filter((entry) => entry.messageId);
  }
  const id = messageIdOf(payload.extra);
  return id ? [{ messageId: id, sender: null }] : [];
}

function hasPending(message) {
  return (message.deliveries || []).some((d) => d.outcome === 'pending');
}

/**
 * The channel messages fetched for the Mind view, by id. Each entry is
 * {state: 'loading'} | {state: 'loaded', message} | {state: 'error', error};
 * `version` grows with every change and `onChange()` is called after it.
 */
export class DeliveryRecords {
  constructor(onChange) {
    this.onChange = onChange;
    this.entries = new Map();
    this.version = 0;
  }

  get(id) {
    return this.entries.get(id) || null;
  }

  /** Fetch the ids never fetched, failed, or with a delivery still pending. */
  refresh(ids) {
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (!entry || entry.state === 'error' || (entry.state === 'loaded' && hasPending(entry.message))) {
        this.load(id);
      }
    }
  }

  /**
   * Fetch `id` unless it was fetched or is being fetched. Safe while a row
   * is being built: the entry turns 'loading' without a call to onChange.
   */
  want(id) {
    if (this.entries.has(id)) return;
    this.entries.set(id, { state: 'loading' });
    this.fetch(id);
  }

  /** Fetch `id` again (a "Try again" button, a row opened). */
  load(id) {
    this.set(id, { state: 'loading' });
    this.fetch(id);
  }

  async fetch(id) {
    let entry;
    try {
      const message = await api(`api/channel-messages/${encodeURIComponent(id)}`);
      entry = { state: 'loaded', message };
    } catch (error) {
      entry = { state: 'error', error: messageOf(error) };
    }
    this.set(id, entry);
  }

  set(id, entry) {
    this.entries.delete(id); // re-inserted last: the newest is forgotten last
    this.entries.set(id, entry);
    while (this.entries.size > MAX_CACHED) this.entries.delete(this.entries.keys().next().value);
    this.version += 1;
    this.onChange?.();
  }
}

function flagOf(deliveries) {
  if (isPartial(deliveries)) return h('span', { class: 'receipt-flag flag-partial' }, 'partial');
  if (allRefused(deliveries)) return h('span', { class: 'receipt-flag flag-refused' }, 'refused');
  return null;
}

function loadError(text, retry) {
  return h('p', { class: 'load-error', role: 'alert' }, `${text} `,
    h('button', { type: 'button', class: 'link-button', onclick: retry }, 'Try again'));
}

/** One message's line: this agent's own chip, then the others', compactly. */
function recordLine(entry, { messageId, sender }, agentName, records) {
  const who = sender ? h('span', { class: 'record-sender' }, `${sender}: `) : null;
  let body;
  if (!entry || entry.state === 'loading') {
    body = h('span', { class: 'muted', role: 'status' }, 'Loading the delivery…');
  } else if (entry.state === 'error') {
    body = loadError(`Could not load the delivery of message ${messageId}: ${entry.error}`,
      () => records.load(messageId));
  } else {
    const deliveries = entry.message.deliveries || [];
    const own = deliveries.filter((d) => d.recipient === agentName);
    const others = deliveries.filter((d) => d.recipient !== agentName);
    body = h('div', { class: 'deliveries' },
      own.length
        ? h('ul', { class: 'delivery-list delivery-own', 'aria-label': `Delivery to ${agentName}` },
          own.map(deliveryChip))
        : h('span', { class: 'muted' }, `No delivery to ${agentName} recorded.`),
      flagOf(deliveries),
      others.length ? h('span', { class: 'others-label' }, 'others:') : null,
      others.length
        ? h('ul', { class: 'delivery-list delivery-others', 'aria-label': 'Other recipients' },
          others.map(deliveryChip))
        : null);
  }
  return h('li', { class: 'delivery-record', dataset: { message: messageId } }, who, body);
}

/**
 * The "Delivery" section of an open row whose item holds channel messages,
 * or null. Asks `records` for the messages not fetched yet.
 */
export function deliverySection(item, agentName, records) {
  const all = channelMessagesOf(item);
  if (!all.length) return null;
  const shown = all.slice(0, MAX_RECORD_LINES);
  for (const { messageId } of shown) records.want(messageId);
  return h('section', { class: 'item-deliveries' },
    h('h3', null, shown.length > 1 ? `Delivery of ${all.length} messages` : 'Delivery'),
    h('ol', { class: 'delivery-records' },
      shown.map((ref) => recordLine(records.get(ref.messageId), ref, agentName, records))),
    all.length > shown.length
      ? h('p', { class: 'muted' }, `${all.length - shown.length} more not shown.`) : null);
}

function parsed(text) {
  if (typeof text !== 'string') return null;
  try {
    const value = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

function whereSent(receipt) {
  const key = typeof receipt.channelKey === 'string' && receipt.channelKey ? receipt.channelKey : null;
  if (!key) return null;
  const conversation = typeof receipt.conversationId === 'string' && receipt.conversationId
    ? receipt.conversationId : null;
  return h('span', { class: 'sent-where' }, 'on ', channelLink(key),
    conversation ? [' ', h('a', {
      class: 'conversation-link', href: channelHash(key, conversation),
      title: `Show conversation ${conversation} in the channel view`,
    }, conversationCode(conversation))] : null);
}

/**
 * What a send tool's tool_end log line amounted to (an activity log entry
 * {type, content, metadata: {tool, ok, result}}), or null for any other line:
 * the outcome chips of the receipt in metadata.result, the refusal or error
 * of a send that failed, or, when the result was clipped in the log, the
 * stored message's outcomes.
 */
export function toolReceipt(entry, records) {
  const meta = entry && entry.metadata;
  if (!entry || entry.type !== 'tool_end' || !meta || !SEND_TOOLS.has(meta.tool)) return null;
  const result = parsed(meta.result);
  if (result && result.ok === false) {
    const refused = result.outcome === 'refused';
    return h('div', { class: 'deliveries sent-receipt' },
      h('span', { class: 'receipt-flag flag-refused' }, refused ? 'refused' : 'not sent'),
      // The message names the recipient and the reason ("unknown recipient 'zed': …").
      h('span', { class: 'delivery-reason' }, String(result.message || result.reason || result.error || '')));
  }
  if (result && Array.isArray(result.deliveries)) {
    return h('div', { class: 'sent-receipt' },
      deliveryList(result.deliveries) || h('span', { class: 'muted' }, 'Posted; no recipients.'), ' ',
      whereSent(result));
  }
  // Clipped at the log's limit: the message id comes before the deliveries.
  const found = typeof meta.result === 'string' ? meta.result.match(/"messageId":\s*"([^"\\]{1,200})"/) : null;
  if (!found) return h('p', { class: 'muted sent-receipt' }, 'The receipt is not in the log (clipped).');
  const id = found[1];
  records.want(id);
  const record = records.get(id);
  if (!record || record.state === 'loading') {
    return h('p', { class: 'muted sent-receipt', role: 'status' }, 'Loading the delivery…');
  }
  if (record.state === 'error') {
    return loadError(`Could not load the delivery of message ${id}: ${record.error}`, () => records.load(id));
  }
  const message = record.message;
  return h('div', { class: 'sent-receipt', dataset: { message: id } },
    deliveryList(message.deliveries) || h('span', { class: 'muted' }, 'Posted; no recipients.'), ' ',
    whereSent(message));
}
