// Channel pieces shared by the channel view and the Agent Mind view: links to
// a channel, the compact form of a conversation id, and the delivery outcome
// of a message at each recipient (000 §11, A2A-04, A2A-06): started, steered,
// queued (reason), refused (reason), and "partial" when some were refused.
// Every outcome shows its name: colour is never the only signal.

import { h } from './dom.js';

export const KIND_LABELS = { dm: 'DM', team: 'Team', custom: 'Group' };

/** The page address of a channel, optionally narrowed to one conversation. */
export function channelHash(key, conversationId = null) {
  // Colons are fine in a fragment: dm:a2a:ada:bob stays readable.
  const path = `#/channels/${encodeURIComponent(key).replace(/%3A/gi, ':')}`;
  return conversationId ? `${path}?conversation=${encodeURIComponent(conversationId)}` : path;
}

/**
 * A conversation id in a few characters: "conv_…3fa2c1". Ids are
 * conv_<12 hex of ms><6 hex of a counter><8 hex of a process tag> (attn.ids):
 * the counter tells the conversations of one server apart. Other ids keep
 * their last six characters.
 */
export function compactConversation(id) {
  const text = String(id || '');
  const match = text.match(/^([a-z]+)_([0-9a-f]{12})([0-9a-f]{6})([0-9a-f]{8})$/);
  if (match) return `${match[1]}_…${match[3]}`;
  return text.length <= 12 ? text : `${text.slice(0, 5)}…${text.slice(-6)}`;
}

/** The conversation id as a short code; the full id is its title. */
export function conversationCode(id) {
  return h('code', { class: 'conversation', title: id, dataset: { conversation: id } }, compactConversation(id));
}

/** A link to a channel (and a conversation of it) in the channel view. */
export function channelLink(key, conversationId = null, label = null) {
  return h('a', { class: 'channel-link', href: channelHash(key, conversationId), dataset: { channel: key } },
    label || h('code', null, key));
}

/** True when some recipients were refused and some were not (A2A-04). */
export function isPartial(deliveries) {
  const refused = (deliveries || []).filter((d) => d.outcome === 'refused').length;
  return refused > 0 && refused < deliveries.length;
}

/** True when there were recipients and every one of them was refused. */
export function allRefused(deliveries) {
  return Boolean(deliveries && deliveries.length) && deliveries.every((d) => d.outcome === 'refused');
}

/** "queued (busy: 2 item(s) ahead)", "started", "refused (mailbox full)". */
export function outcomeText(delivery) {
  const outcome = delivery.outcome || 'pending';
  return delivery.reason ? `${outcome} (${delivery.reason})` : outcome;
}

/** One recipient's outcome as a chip: recipient name, then its outcome and reason. */
export function deliveryChip(delivery) {
  const outcome = delivery.outcome || 'pending';
  return h('li', { class: `delivery outcome-${outcome}`, dataset: { recipient: delivery.recipient, outcome } },
    h('span', { class: 'delivery-recipient' }, delivery.recipient), ' ',
    h('span', { class: 'delivery-outcome' }, outcome),
    delivery.reason ? h('span', { class: 'delivery-reason' }, ` (${delivery.reason})`) : null);
}

/**
 * The delivery of one message: a list of outcome chips with "partial" or
 * "refused" in front when that is what the send amounted to; null when the
 * message had no recipients (an answer to a person is only posted).
 */
export function deliveryList(deliveries) {
  if (!deliveries || !deliveries.length) return null;
  const summary = isPartial(deliveries) ? h('span', { class: 'receipt-flag flag-partial' }, 'partial')
    : allRefused(deliveries) ? h('span', { class: 'receipt-flag flag-refused' }, 'refused') : null;
  return h('div', { class: 'deliveries' },
    summary,
    h('ul', { class: 'delivery-list', 'aria-label': 'Delivery' }, deliveries.map(deliveryChip)));
}
