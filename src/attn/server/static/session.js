// Messages of an agent's main session as the chat panel shows them (000
// §20, PPL-01, PPL-17): a person's chat, the agent's reply, its notify_user
// messages (badge "notification", with the task they are about) and, in the
// Mind tab only, its activity lines "[ACTIVITY: type] summary → outcome".

import { clip, h, timeOfDay } from './dom.js';
import { personName } from './people.js';
import { typeOf } from './types.js';

const ACTIVITY = /^\[ACTIVITY: ([^\]]+)\]\s*([\s\S]*?)\s*→\s*([\s\S]*)$/;
const NOTIFY_CONTEXT = /\s*<!--\s*notify_context:[\s\S]*?-->\s*/g;
const TITLE = /^\*\*([\s\S]+?)\*\*\s*(?:\n|$)/;

/** The pieces of an activity line, or null when it does not follow the format. */
export function activityParts(content) {
  const found = ACTIVITY.exec(String(content || '').trim());
  return found ? { type: found[1], summary: found[2], outcome: found[3] } : null;
}

/** A notify_user message's {title, body}, without its notify_context comment. */
export function notifyParts(content) {
  const text = String(content || '').replace(NOTIFY_CONTEXT, '\n').trim();
  const title = TITLE.exec(text);
  return title ? { title: title[1].trim(), body: text.slice(title[0].length).trim() } : { title: '', body: text };
}

/**
 * The element of one stored message. agentName: whose session;
 * onReveal(mailboxItemId): show the item an activity line is about.
 */
export function messageElement(message, agentName, { onReveal } = {}) {
  const meta = message.metadata || {};
  const time = h('time', { class: 'message-time', datetime: message.createdAt || '' }, timeOfDay(message.createdAt));
  const data = { messageId: message.id, role: message.role, mailboxItemId: meta.mailboxItemId || '' };
  if (message.role === 'activity') {
    const parts = activityParts(message.content);
    const text = parts
      ? [h('span', { class: 'type-icon', 'aria-hidden': 'true' }, typeOf(parts.type).icon || '•'),
        h('span', { class: 'activity-tag', dataset: { type: parts.type } }, `[ACTIVITY: ${parts.type}]`), ' ',
        h('span', { class: 'activity-summary' }, clip(parts.summary, 300)), ' ',
        h('span', { class: 'activity-arrow', 'aria-hidden': 'true' }, '→'), h('span', { class: 'sr-only' }, 'outcome:'), ' ',
        h('span', { class: 'activity-outcome' }, clip(parts.outcome, 300))]
      : clip(message.content, 600);
    const reveal = meta.mailboxItemId && onReveal
      ? h('button', { type: 'button', class: 'link-button activity-item', onclick: () => onReveal(meta.mailboxItemId) }, 'show item')
      : null;
    return h('div', { class: 'session-activity', dataset: data }, h('p', { class: 'activity-text' }, text), ' ', time, ' ', reveal);
  }
  if (message.role === 'user') {
    return h('div', { class: 'chat-message from-user', dataset: data },
      h('span', { class: 'who' }, personName(meta.userId), ' ', time), h('p', { class: 'text' }, message.content));
  }
  if (meta.notifyUser) {
    const { title, body } = notifyParts(message.content);
    return h('div', { class: 'chat-message from-agent notify-message', dataset: data },
      h('span', { class: 'who' }, agentName, ' ', h('span', { class: 'tag tag-notify' }, 'notification'), ' ',
        meta.priority && meta.priority !== 'normal' ? h('span', { class: `ntf-priority ntf-priority-${meta.priority}` }, meta.priority) : null,
        ' ', time),
      title ? h('p', { class: 'notify-title' }, title) : null,
      body ? h('p', { class: 'text' }, body) : null,
      meta.taskId ? h('p', { class: 'notify-task' }, 'About task ',
        h('a', { href: `#/work?task=${encodeURIComponent(meta.taskId)}` }, h('code', null, meta.taskId))) : null);
  }
  return h('div', { class: 'chat-message from-agent', dataset: data },
    h('span', { class: 'who' }, agentName, ' ', time), h('p', { class: 'text' }, message.content));
}

/** Whether a message belongs in a tab: activity lines only in the Mind tab. */
export function shownIn(view, message) {
  return view === 'mind' || message.role !== 'activity';
}
