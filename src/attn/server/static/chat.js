// Chat with one agent (UI-05) in its main session (000 §20): the message goes
// through the agent's mailbox as a human_chat item and the reply streams back
// (SSE route). The log is the agent's stored main session: the Chat tab
// (GET …/session?view=chat) holds people's messages, the agent's replies and
// its notify_user messages; the Mind tab (view=mind) adds its activity lines.
// Live `session:message` events add to it; a message this panel sent and
// streamed is matched to its stored copy by item id (or, before the stream has
// named its item, by its text), so it shows once.

import { agentPath, api, query, streamChat } from './api.js';
import { h, replaceChildren } from './dom.js';
import { messageOf } from './notices.js';
import { currentUser, personName } from './people.js';
import { messageElement, shownIn } from './session.js';

const PAGE = 50;
const MAX_MESSAGES = 2000;

export class ChatPanel {
  /** onReveal(mailboxItemId): show the mailbox item an activity line is about. */
  constructor(agentName, { onReveal } = {}) {
    this.agentName = agentName;
    this.onReveal = onReveal;
    this.sessionId = `ui-${Math.random().toString(36).slice(2, 10)}`;
    this.controllers = new Set();
    this.view = 'chat';
    this.messages = new Map(); // id → stored message of the current tab
    this.elements = new Map(); // id → its element
    this.local = []; // {mailboxItemId, user, agent}: messages sent from this panel
    this.arrivals = 0;
    this.nextBeforeSeq = null;
    this.generation = 0;
    this.log = h('div', { class: 'chat-log', role: 'log', 'aria-live': 'polite', 'aria-label': `Conversation with ${agentName}`, id: 'chat-log' });
    this.tabs = {
      chat: this.tab('chat', 'Chat'),
      mind: this.tab('mind', 'Mind'),
    };
    this.earlier = h('button', { type: 'button', class: 'link-button session-earlier', hidden: true, onclick: () => this.load(false) },
      'Load earlier messages');
    this.loadError = h('p', { class: 'chat-load-error', role: 'alert', hidden: true });
    this.input = h('textarea', {
      id: 'chat-input', name: 'text', rows: '2', required: true, maxlength: '20000',
      placeholder: `Message ${agentName}…`,
    });
    this.sendButton = h('button', { type: 'submit', class: 'primary' }, 'Send');
    this.form = h('form', { class: 'chat-form' },
      h('label', { for: 'chat-input' }, 'Message'),
      this.input, this.sendButton);
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.send();
    });
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.send();
      }
    });
    this.el = h('section', { class: 'chat panel', 'aria-labelledby': 'chat-heading' },
      h('h2', { id: 'chat-heading' }, `Chat with ${agentName}`),
      h('div', { class: 'session-tabs', role: 'tablist', 'aria-label': 'Main session', onkeydown: (event) => this.arrow(event) },
        this.tabs.chat, this.tabs.mind),
      h('p', { class: 'hint' }, 'Your message is queued as a chat item (priority 0); the reply streams in here. Mind adds what the agent did meanwhile.'),
      this.loadError, this.earlier, this.log, this.form);
    this.paintTabs();
  }

  tab(view, label) {
    return h('button', {
      type: 'button', role: 'tab', class: 'session-tab', id: `session-tab-${view}`, 'aria-controls': 'chat-log',
      dataset: { view }, onclick: () => this.show(view),
    }, label);
  }

  /** Left and right arrows move between the tabs (the tabs pattern of WAI-ARIA). */
  arrow(event) {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    event.preventDefault();
    const next = this.view === 'chat' ? 'mind' : 'chat';
    this.show(next);
    this.tabs[next].focus();
  }

  paintTabs() {
    for (const [view, button] of Object.entries(this.tabs)) {
      button.setAttribute('aria-selected', String(view === this.view));
      button.tabIndex = view === this.view ? 0 : -1;
    }
    this.log.setAttribute('aria-labelledby', `session-tab-${this.view}`);
    this.log.dataset.view = this.view;
  }

  /** Switch tabs: chat (without activity lines) or mind (all of the session). */
  show(view) {
    if (view === this.view) return;
    this.view = view;
    this.paintTabs();
    this.messages.clear();
    this.render();
    this.load(true);
  }

  focus() {
    this.input.focus({ preventScroll: false });
    this.el.scrollIntoView({ block: 'nearest' });
  }

  // ------------------------------------------------------------ loading

  /** The newest page (reset) or the page before the oldest shown. */
  async load(reset = true) {
    const generation = ++this.generation;
    const view = this.view;
    const beforeSeq = reset ? undefined : this.nextBeforeSeq;
    if (!reset && !beforeSeq) return;
    try {
      const data = await api(agentPath(this.agentName, `/session${query({ view, beforeSeq, limit: PAGE })}`));
      if (generation !== this.generation || view !== this.view) return;
      const page = (data.messages || []).filter((m) => shownIn(view, m));
      if (reset) {
        // Live messages not in the page yet (staged before their commit) stay.
        const ids = new Set(page.map((m) => m.id));
        const kept = [...this.messages.values()].filter((m) => !ids.has(m.id) && !(m.seq > 0));
        this.messages = new Map([...page, ...kept].map((m) => [m.id, m]));
      } else {
        for (const m of page) this.messages.set(m.id, m);
      }
      this.nextBeforeSeq = data.nextBeforeSeq || null;
      this.loadError.hidden = true;
    } catch (error) {
      if (generation !== this.generation) return;
      this.loadError.textContent = `Could not load the conversation: ${messageOf(error)}`;
      this.loadError.hidden = false;
    }
    this.render(reset);
  }

  /** A live `session:message` of this agent. */
  onMessage(message) {
    if (!message || message.agentId !== this.agentName || !shownIn(this.view, message)) return;
    if (this.messages.has(message.id)) return;
    this.messages.set(message.id, { ...message, arrival: ++this.arrivals });
    while (this.messages.size > MAX_MESSAGES) this.messages.delete(this.messages.keys().next().value);
    this.render(true);
  }

  // ------------------------------------------------------------ rendering

  render(stickToEnd = false) {
    const atEnd = this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 40;
    const ordered = [...this.messages.values()].sort((a, b) => rank(a) - rank(b) || (a.arrival || 0) - (b.arrival || 0));
    this.adopt(ordered);
    const used = new Set();
    const nodes = ordered.map((m) => {
      const sent = m.metadata && m.metadata.mailboxItemId ? this.local.find((l) => l.mailboxItemId === m.metadata.mailboxItemId) : null;
      const own = sent && (m.role === 'user' ? sent.user : m.role === 'assistant' ? sent.agent : null);
      if (own) {
        if (m.role === 'assistant') sent.stored(m.content);
        used.add(own);
        own.dataset.messageId = m.id;
        this.elements.delete(m.id);
        return own;
      }
      let el = this.elements.get(m.id);
      if (!el) {
        el = messageElement(m, this.agentName, { onReveal: this.onReveal });
        this.elements.set(m.id, el);
      }
      return el;
    });
    for (const id of [...this.elements.keys()]) if (!this.messages.has(id)) this.elements.delete(id);
    // Messages sent here that are not stored yet (still being answered) come last.
    const waiting = this.local.flatMap((l) => [l.user, l.agent]).filter((el) => !used.has(el));
    replaceChildren(this.log, nodes, waiting);
    this.earlier.hidden = !this.nextBeforeSeq;
    if (stickToEnd && atEnd) this.scrollToEnd();
  }

  /** Tie stored copies to messages sent here whose stream has not named its item
   * yet (a buffering proxy can hold the whole stream back until the reply is
   * stored): the oldest unnamed send with the same text takes the item. */
  adopt(ordered) {
    const named = new Set(this.local.map((l) => l.mailboxItemId).filter(Boolean));
    for (const m of ordered) {
      const id = m.metadata && m.metadata.mailboxItemId;
      if (m.role !== 'user' || !id || named.has(id)) continue;
      const sent = this.local.find((l) => !l.mailboxItemId && l.text === m.content);
      if (!sent) continue;
      sent.name(id);
      named.add(id);
    }
  }

  // ------------------------------------------------------------ sending

  async send() {
    const text = this.input.value;
    if (!text.trim()) {
      this.input.focus();
      return;
    }
    this.input.value = '';
    const user = currentUser();
    const userBubble = h('div', { class: 'chat-message from-user', dataset: { role: 'user' } },
      h('span', { class: 'who' }, 'You'), h('p', { class: 'text' }, text));
    const replyText = h('p', { class: 'text' });
    const status = h('span', { class: 'reply-status' }, 'queued…');
    const bubble = h('div', { class: 'chat-message from-agent streaming', 'aria-busy': 'true', dataset: { role: 'assistant' } },
      h('span', { class: 'who' }, this.agentName, ' ', status), replyText);
    let final = false; // the stored reply is shown: the stream can add nothing
    const finish = () => {
      bubble.classList.remove('streaming');
      bubble.removeAttribute('aria-busy');
    };
    const sent = {
      mailboxItemId: null, text, user: userBubble, agent: bubble,
      name: (mailboxItemId) => {
        sent.mailboxItemId = mailboxItemId || null;
        bubble.dataset.mailboxItemId = mailboxItemId || '';
        userBubble.dataset.mailboxItemId = mailboxItemId || '';
      },
      stored: (reply) => {
        if (final) return;
        final = true;
        replyText.textContent = reply;
        status.textContent = '';
        finish();
      },
    };
    this.local.push(sent);
    this.log.append(userBubble, bubble);
    this.scrollToEnd();
    const controller = new AbortController();
    this.controllers.add(controller);
    let streamed = '';
    const body = { text, sessionId: this.sessionId };
    if (user) Object.assign(body, { senderId: user, senderName: personName(user, { you: false }) });
    try {
      await streamChat(this.agentName, body, {
        onItem: (mailboxItemId) => {
          sent.name(mailboxItemId);
          if (!final) status.textContent = 'waiting for attention…';
          // Its stored copies may have arrived before the item id did.
          this.render(true);
        },
        onDelta: (delta) => {
          if (final) return;
          streamed += delta;
          replyText.textContent = streamed;
          status.textContent = 'replying…';
          this.scrollToEnd();
        },
        onReset: () => {
          if (final) return;
          streamed = '';
          replyText.textContent = '';
        },
        onDone: (done) => {
          if (typeof done.reply === 'string') replyText.textContent = done.reply;
          status.textContent = done.cancelled ? 'cancelled' : '';
          bubble.classList.toggle('cancelled', Boolean(done.cancelled));
          this.render(true);
        },
      }, controller.signal);
    } catch (error) {
      if ((error && error.name === 'AbortError') || final) return;
      bubble.classList.add('failed');
      status.textContent = '';
      bubble.append(h('p', { class: 'chat-error', role: 'alert' }, `No reply: ${messageOf(error)}`));
    } finally {
      this.controllers.delete(controller);
      finish();
    }
  }

  /** Keep the newest message in view (scrolls the log only, never the page). */
  scrollToEnd() {
    this.log.scrollTop = this.log.scrollHeight;
  }

  destroy() {
    this.generation += 1;
    for (const controller of this.controllers) controller.abort();
    this.controllers.clear();
  }
}

/** Stored order; a live message not committed yet (seq 0) after every stored one. */
function rank(message) {
  return message.seq > 0 ? message.seq : Number.MAX_SAFE_INTEGER;
}
