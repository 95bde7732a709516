// Chat with one agent (UI-05): the message goes through the agent's mailbox
// as a human_chat item and the reply streams back (SSE route).

import { streamChat } from './api.js';
import { h } from './dom.js';
import { messageOf } from './notices.js';

export class ChatPanel {
  constructor(agentName) {
    this.agentName = agentName;
    this.sessionId = `ui-${Math.random().toString(36).slice(2, 10)}`;
    this.controllers = new Set();
    this.log = h('div', { class: 'chat-log', role: 'log', 'aria-live': 'polite', 'aria-label': `Conversation with ${agentName}` });
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
      h('p', { class: 'hint' }, 'Your message is queued as a chat item (priority 0); the reply streams in here.'),
      this.log, this.form);
  }

  async send() {
    const text = this.input.value;
    if (!text.trim()) {
      this.input.focus();
      return;
    }
    this.input.value = '';
    this.log.append(h('div', { class: 'chat-message from-user' },
      h('span', { class: 'who' }, 'You'), h('p', { class: 'text' }, text)));
    const replyText = h('p', { class: 'text' });
    const status = h('span', { class: 'reply-status' }, 'queued…');
    const bubble = h('div', { class: 'chat-message from-agent streaming', 'aria-busy': 'true' },
      h('span', { class: 'who' }, this.agentName, ' ', status), replyText);
    this.log.append(bubble);
    this.scrollToEnd();
    const controller = new AbortController();
    this.controllers.add(controller);
    let streamed = '';
    try {
      await streamChat(this.agentName, { text, sessionId: this.sessionId }, {
        onItem: (mailboxItemId) => {
          bubble.dataset.itemId = mailboxItemId || '';
          status.textContent = 'waiting for attention…';
        },
        onDelta: (delta) => {
          streamed += delta;
          replyText.textContent = streamed;
          status.textContent = 'replying…';
          this.scrollToEnd();
        },
        onReset: () => {
          streamed = '';
          replyText.textContent = '';
        },
        onDone: (done) => {
          if (typeof done.reply === 'string') replyText.textContent = done.reply;
          status.textContent = done.cancelled ? 'cancelled' : '';
          bubble.classList.toggle('cancelled', Boolean(done.cancelled));
        },
      }, controller.signal);
    } catch (error) {
      if (error && error.name === 'AbortError') return;
      bubble.classList.add('failed');
      status.textContent = '';
      bubble.append(h('p', { class: 'chat-error', role: 'alert' }, `No reply: ${messageOf(error)}`));
    } finally {
      this.controllers.delete(controller);
      bubble.classList.remove('streaming');
      bubble.removeAttribute('aria-busy');
    }
  }

  /** Keep the newest message in view (scrolls the log only, never the page). */
  scrollToEnd() {
    this.log.scrollTop = this.log.scrollHeight;
  }

  destroy() {
    for (const controller of this.controllers) controller.abort();
    this.controllers.clear();
  }
}
