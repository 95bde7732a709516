// One channel (000 §11.1, §25.2; A2A-02, A2A-06, A2A-08): its members, its
// history oldest first and paged backwards ("Load older"), new messages as
// they arrive (`channel:message` events), each message's delivery outcome per
// recipient, and a composer for a person. With a conversation id it shows that
// conversation only, and a post continues it.
//
// Messages are keyed by id and ordered by `seq`: a live event, the answer to
// a post and a reload update the same row, never a copy.

import { api, channelPath, query } from './api.js';
import { clip, h, replaceChildren, timeOfDay, uid } from './dom.js';
import { messageOf } from './notices.js';
import { KIND_LABELS, channelHash, conversationCode, deliveryList } from './receipts.js';

const PAGE = 30;
const SENDER_KEY = 'attn.sender';
const MAX_TEXT = 100_000;

/** The name a person posts under (kept in this tab); "user" by default. */
export function senderName() {
  return sessionStorage.getItem(SENDER_KEY) || 'user';
}

export class ChannelPanel {
  /** key: the channel key; conversationId: show and continue only this conversation (or null). */
  constructor(key, conversationId = null) {
    this.key = key;
    this.conversationId = conversationId;
    this.channel = null;
    this.records = new Map(); // message id → {message, el}
    this.order = []; // records by seq, oldest first
    this.nextBefore = null;
    this.busy = false;
    this.generation = 0;
    this.destroyed = false;
    this.build();
  }

  build() {
    this.heading = h('h1', { id: 'channel-heading' }, this.key);
    this.kindBadge = h('span', { class: 'kind-badge' });
    this.keyLine = h('p', { class: 'channel-key muted' }, h('code', null, this.key));
    this.membersList = h('ul', { class: 'member-list', 'aria-label': 'Members' });
    this.loadError = h('p', { class: 'load-error', role: 'alert', hidden: true });
    this.conversationBar = h('p', { class: 'conversation-bar', hidden: !this.conversationId },
      'Showing conversation ', this.conversationId ? conversationCode(this.conversationId) : null, ' only. ',
      h('a', { href: channelHash(this.key) }, 'Show the whole channel'));
    const header = h('header', { class: 'channel-header panel', 'aria-labelledby': 'channel-heading' },
      h('div', { class: 'channel-title' }, this.heading, this.kindBadge),
      this.keyLine, this.loadError,
      h('h2', { class: 'members-heading' }, 'Members'), this.membersList, this.conversationBar);

    this.olderButton = h('button', { type: 'button', class: 'load-older', hidden: true, onclick: () => this.loadOlder() },
      'Load older messages');
    this.historyError = h('p', { class: 'load-error', role: 'alert', hidden: true });
    this.empty = h('p', { class: 'muted', hidden: true }, 'No messages yet.');
    this.list = h('ol', { class: 'channel-messages', 'aria-label': 'Messages, oldest first' });
    this.scroller = h('div', { class: 'channel-scroll', role: 'log', 'aria-live': 'polite', 'aria-labelledby': 'history-heading' },
      this.olderButton, this.historyError, this.empty, this.list);
    const history = h('section', { class: 'channel-history panel', 'aria-labelledby': 'history-heading' },
      h('h2', { id: 'history-heading' }, 'History'), this.scroller, this.composer());

    this.el = h('div', { class: 'channel', dataset: { channel: this.key } }, header, history);
  }

  composer() {
    const senderId = uid('sender');
    const textId = uid('post-text');
    this.senderInput = h('input', {
      id: senderId, name: 'sender', type: 'text', required: true, maxlength: '64', autocomplete: 'off',
      value: senderName(), spellcheck: 'false',
    });
    this.senderInput.addEventListener('change', () => {
      const value = this.senderInput.value.trim();
      if (value) sessionStorage.setItem(SENDER_KEY, value);
    });
    this.textInput = h('textarea', {
      id: textId, name: 'text', rows: '2', required: true, maxlength: String(MAX_TEXT),
      placeholder: 'Write a message; @name addresses members',
    });
    this.textInput.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.post();
      }
    });
    this.postButton = h('button', { type: 'submit', class: 'primary' }, 'Post');
    this.postError = h('p', { class: 'post-error', role: 'alert', hidden: true });
    this.form = h('form', { class: 'channel-composer', 'aria-label': 'Post a message' },
      h('div', { class: 'composer-sender' }, h('label', { for: senderId }, 'Post as'), this.senderInput),
      h('label', { for: textId, class: 'composer-label' }, 'Message to the channel'),
      this.textInput, this.postButton, this.postError,
      h('p', { class: 'hint' }, this.conversationId
        ? 'Your message continues this conversation.'
        : 'On a group, @name sends it to the named members only; without a mention every member gets it.'));
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.post();
    });
    return this.form;
  }

  // ------------------------------------------------------------- loading

  async load() {
    await Promise.all([this.loadChannel(), this.loadHistory(true)]);
  }

  async loadChannel() {
    try {
      const channel = await api(channelPath(this.key));
      if (this.destroyed) return;
      this.loadError.hidden = true;
      this.setChannel(channel);
    } catch (error) {
      if (this.destroyed) return;
      this.loadError.textContent = error && error.status === 404
        ? `There is no channel with the key ${clip(this.key, 120)}.`
        : `Could not load this channel: ${messageOf(error)}`;
      this.loadError.hidden = false;
    }
  }

  setChannel(channel) {
    this.channel = channel;
    this.heading.textContent = channel.name || channel.key;
    this.kindBadge.textContent = KIND_LABELS[channel.kind] || channel.kind;
    this.kindBadge.className = `kind-badge kind-${channel.kind}`;
    replaceChildren(this.keyLine, h('code', null, channel.key),
      channel.createdBy ? ` · created by ${channel.createdBy}` : null);
    replaceChildren(this.membersList, (channel.members || []).map((name) => h('li', null,
      h('a', { href: `#/agents/${encodeURIComponent(name)}`, class: 'member-name' }, name), ' ',
      h('button', {
        type: 'button', class: 'link-button mention', 'aria-label': `Mention ${name}`,
        onclick: () => this.mention(name),
      }, `@${name}`))));
  }

  /** The newest page (reset) or the page before the oldest one shown. */
  async loadHistory(reset) {
    const generation = ++this.generation;
    const before = reset ? null : this.nextBefore;
    this.busy = true;
    this.renderPager();
    try {
      const data = await api(channelPath(this.key, `/messages${query({
        limit: PAGE, before, conversationId: this.conversationId,
      })}`));
      if (generation !== this.generation || this.destroyed) return;
      this.historyError.hidden = true;
      const height = this.scroller.scrollHeight;
      const top = this.scroller.scrollTop;
      if (reset) this.clear();
      for (const message of data.messages || []) this.upsert(message);
      this.nextBefore = data.nextBefore ?? null;
      // An older page goes on top: keep the messages in view where they were.
      if (reset) this.scrollToEnd();
      else this.scroller.scrollTop = top + (this.scroller.scrollHeight - height);
    } catch (error) {
      if (generation !== this.generation || this.destroyed) return;
      this.historyError.textContent = `Could not load the history: ${messageOf(error)}`;
      this.historyError.hidden = false;
    } finally {
      if (generation === this.generation) this.busy = false;
      this.renderPager();
    }
  }

  loadOlder() {
    if (this.busy || this.nextBefore === null) return;
    this.loadHistory(false);
  }

  clear() {
    this.records.clear();
    this.order = [];
    this.list.replaceChildren();
  }

  // ------------------------------------------------------------- live

  /** A `channel:message` event (or a post's answer): show or update the message. */
  onMessage(message) {
    if (!message || message.channelKey !== this.key) return;
    if (this.conversationId && message.conversationId !== this.conversationId) return;
    // Older than the loaded pages: it belongs to a page not shown yet.
    const oldest = this.order.length ? this.order[0].message.seq : null;
    if (!this.records.has(message.id) && oldest !== null && message.seq < oldest && this.nextBefore !== null) return;
    const follow = this.nearEnd();
    this.upsert(message);
    this.renderPager();
    if (follow) this.scrollToEnd();
  }

  onChannel(channel) {
    if (channel && channel.key === this.key) this.setChannel(channel);
  }

  // ------------------------------------------------------------- rows

  upsert(message) {
    let record = this.records.get(message.id);
    if (!record) {
      record = { message, el: h('li', { class: 'channel-message', dataset: { id: message.id } }) };
      this.records.set(message.id, record);
      const index = this.indexFor(message.seq);
      const after = this.order[index];
      this.order.splice(index, 0, record);
      this.list.insertBefore(record.el, after ? after.el : null);
    } else {
      record.message = message;
    }
    this.paint(record);
  }

  indexFor(seq) {
    // First index whose seq is larger (seqs ascending).
    let lo = 0;
    let hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.order[mid].message.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  paint(record) {
    const m = record.message;
    const person = m.senderKind === 'person';
    record.el.className = `channel-message from-${person ? 'person' : 'agent'}${m.kind === 'delegation' ? ' delegation' : ''}`;
    record.el.dataset.seq = String(m.seq);
    record.el.dataset.sender = m.senderId;
    const question = m.replyTo ? this.records.get(m.replyTo) : null;
    replaceChildren(record.el,
      h('div', { class: 'message-head' },
        h('span', { class: 'message-sender' }, m.senderId),
        person ? h('span', { class: 'tag tag-person' }, 'person') : null,
        m.kind === 'delegation' ? h('span', { class: 'tag tag-delegation' }, 'delegation') : null,
        m.expectsReply ? h('span', { class: 'tag tag-asks' }, 'asks for a reply') : null,
        (m.mentions || []).length ? h('span', { class: 'message-mentions' },
          '→ ', m.mentions.map((name) => `@${name}`).join(' ')) : null,
        h('a', {
          class: 'conversation-link', href: channelHash(this.key, m.conversationId),
          title: `Show conversation ${m.conversationId} only`,
        }, conversationCode(m.conversationId)),
        h('time', { datetime: m.createdAt || '' }, timeOfDay(m.createdAt))),
      m.replyTo ? h('p', { class: 'reply-to muted' }, '↩ reply to ',
        question ? `${question.message.senderId}: “${clip(question.message.text, 80)}”` : h('code', null, m.replyTo)) : null,
      h('p', { class: 'message-text' }, clip(m.text, 5000)),
      deliveryList(m.deliveries));
  }

  renderPager() {
    this.olderButton.hidden = this.nextBefore === null;
    this.olderButton.disabled = this.busy;
    this.olderButton.textContent = this.busy && this.order.length ? 'Loading…' : 'Load older messages';
    this.empty.hidden = this.order.length > 0 || this.busy;
  }

  nearEnd() {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight < 40;
  }

  scrollToEnd() {
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  // ------------------------------------------------------------- posting

  mention(name) {
    const input = this.textInput;
    const text = input.value;
    const gap = text && !/\s$/.test(text) ? ' ' : '';
    input.value = `${text}${gap}@${name} `;
    input.focus();
  }

  /** Post the composer's text as a person; a refusal is shown under the composer. */
  async post() {
    const text = this.textInput.value;
    const sender = this.senderInput.value.trim();
    if (!text.trim()) {
      this.textInput.focus();
      return;
    }
    if (!sender) {
      this.showPostError('Say who is posting ("Post as").');
      this.senderInput.focus();
      return;
    }
    sessionStorage.setItem(SENDER_KEY, sender);
    this.postButton.disabled = true;
    this.postError.hidden = true;
    try {
      const body = { senderId: sender, senderKind: 'person', text };
      if (this.conversationId) body.conversationId = this.conversationId;
      const receipt = await api(channelPath(this.key, '/messages'), { method: 'POST', body });
      if (this.destroyed) return;
      this.textInput.value = '';
      if (receipt && receipt.message) {
        this.upsert(receipt.message);
        this.renderPager();
        this.scrollToEnd();
      }
    } catch (error) {
      if (this.destroyed) return;
      const reason = error && error.detail && error.detail.reason;
      const refused = error && error.detail && error.detail.outcome === 'refused';
      this.showPostError(refused
        ? `Not posted: refused (${reason || 'no reason given'}): ${messageOf(error)}`
        : `Not posted: ${messageOf(error)}`);
    } finally {
      this.postButton.disabled = false;
    }
  }

  showPostError(text) {
    this.postError.textContent = text;
    this.postError.hidden = false;
  }

  destroy() {
    this.destroyed = true;
    this.generation += 1;
  }
}
