// The notification bell in the header (000 §12, PPL-09, UI-06): the unread
// count of the current person, kept live by the `notification` and
// `notification:read` events; a panel listing their notifications (the
// type's icon, title, body, time, priority); mark one read, mark all read;
// and each one's action: `navigate` goes to the page its path names,
// `open_chat` opens the chat with the agent.

import { api, query } from './api.js';
import { clip, h, replaceChildren, throttle } from './dom.js';
import { messageOf, notify } from './notices.js';
import {
  allUsers, chatRoute, currentUser, notificationType, onPersonChanged, routeOfPath, setCurrentUser,
} from './people.js';

const PAGE = 30;
const MAX_SHOWN = 200;

export class NotificationBell {
  /** host: the header element the bell goes in. */
  constructor(host) {
    this.notifications = new Map(); // id → notification, newest first by insertion
    this.unread = null;
    this.eventsWhileLoading = 0;
    this.total = null;
    this.generation = 0;
    this.count = h('span', { class: 'bell-count', hidden: true });
    this.button = h('button', {
      type: 'button', class: 'bell-button', 'aria-expanded': 'false', 'aria-controls': 'bell-panel',
      onclick: () => this.toggle(),
    }, h('span', { class: 'bell-icon', 'aria-hidden': 'true' }, '🔔'), this.count);
    this.announcer = h('span', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
    this.person = h('select', { id: 'bell-person' });
    this.person.addEventListener('change', () => setCurrentUser(this.person.value));
    this.personRow = h('p', { class: 'bell-person', hidden: true },
      h('label', { for: 'bell-person' }, 'For'), ' ', this.person);
    this.markAll = h('button', { type: 'button', class: 'link-button bell-mark-all', onclick: () => this.markAllRead() },
      'Mark all read');
    this.list = h('ol', { class: 'bell-list', 'aria-labelledby': 'bell-heading' });
    this.empty = h('p', { class: 'muted bell-empty', hidden: true }, 'No notifications.');
    this.error = h('p', { class: 'bell-error', role: 'alert', hidden: true });
    this.more = h('button', { type: 'button', class: 'bell-more', hidden: true, onclick: () => this.load(true) },
      'Show older');
    this.panel = h('section', { id: 'bell-panel', class: 'bell-panel', hidden: true, 'aria-labelledby': 'bell-heading' },
      h('div', { class: 'bell-head' }, h('h2', { id: 'bell-heading' }, 'Notifications'), this.markAll),
      this.personRow, this.error, this.empty, this.list, this.more,
      h('p', { class: 'bell-foot' }, h('a', { href: '#/approvals', onclick: () => this.close() }, 'All approvals')));
    this.el = h('div', { class: 'bell' }, this.button, this.panel, this.announcer);
    host.replaceChildren(this.el);
    this.loadSoon = throttle(() => this.load(), 500);
    this.unsubscribe = onPersonChanged(() => {
      this.notifications.clear();
      this.load();
    });
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.isOpen()) {
        this.close();
        this.button.focus();
      }
    });
    document.addEventListener('click', (event) => {
      if (this.isOpen() && !this.el.contains(event.target)) this.close();
    });
    this.renderCount();
  }

  isOpen() {
    return !this.panel.hidden;
  }

  toggle() {
    if (this.isOpen()) this.close();
    else this.open();
  }

  open() {
    this.panel.hidden = false;
    this.button.setAttribute('aria-expanded', 'true');
    // On a narrow screen the panel spans the page just below the bell (people.css).
    this.panel.style.setProperty('--bell-top', `${Math.round(this.button.getBoundingClientRect().bottom + 6)}px`);
    this.renderPerson();
    this.render();
    this.load();
  }

  close() {
    this.panel.hidden = true;
    this.button.setAttribute('aria-expanded', 'false');
  }

  // ------------------------------------------------------------ loading

  /** The newest page (or, with `older`, the page after the ones shown). */
  async load(older = false) {
    const user = currentUser();
    if (!user) return;
    const generation = ++this.generation;
    const offset = older ? this.notifications.size : 0;
    // A live event that arrives while this page is on its way may be missing from
    // it: the page would then hide it, so the bell loads again (the newest wins).
    this.eventsWhileLoading = 0;
    try {
      const data = await api(`api/notifications${query({ userId: user, limit: PAGE, offset: offset || null })}`);
      if (generation !== this.generation || user !== currentUser()) return;
      if (!older && this.eventsWhileLoading) {
        this.load();
        return;
      }
      const page = data.notifications || [];
      if (!older) {
        this.notifications = new Map(page.map((n) => [n.id, n]));
      } else {
        for (const n of page) if (!this.notifications.has(n.id)) this.notifications.set(n.id, n);
      }
      this.unread = typeof data.unreadCount === 'number' ? data.unreadCount : this.unread;
      this.total = typeof data.totalCount === 'number' ? data.totalCount : this.total;
      this.error.hidden = true;
    } catch (error) {
      if (generation !== this.generation) return;
      this.error.textContent = `Could not load the notifications: ${messageOf(error)}`;
      this.error.hidden = false;
    }
    this.renderCount();
    this.render();
  }

  // ------------------------------------------------------------ live events

  onEvents(frames) {
    const user = currentUser();
    let changed = false;
    for (const frame of frames) {
      const data = frame.data || {};
      if (frame.event === 'notification' || frame.event === 'notification:read') this.eventsWhileLoading += 1;
      if (frame.event === 'notification' && data.notification) {
        const n = data.notification;
        if (n.userId !== user) continue;
        if (!this.notifications.has(n.id)) {
          this.notifications = new Map([[n.id, n], ...this.notifications].slice(0, MAX_SHOWN));
          if (this.unread !== null && !n.read) this.unread += 1;
          if (this.total !== null) this.total += 1;
          this.announcer.textContent = `New notification: ${clip(n.title, 120)}`;
        }
        changed = true;
      } else if (frame.event === 'notification:read' && data.userId === user) {
        const ids = Array.isArray(data.ids) ? new Set(data.ids) : null;
        for (const [id, n] of this.notifications) {
          if (!n.read && (ids === null || ids.has(id))) this.notifications.set(id, { ...n, read: true });
        }
        if (typeof data.unreadCount === 'number') this.unread = data.unreadCount;
        changed = true;
      }
    }
    if (changed) {
      this.renderCount();
      if (this.isOpen()) this.render();
    }
  }

  /** After a reconnect: the count and list from the server. */
  resync() {
    this.loadSoon();
  }

  // ------------------------------------------------------------ actions

  async markRead(n) {
    try {
      const data = await api(`api/notifications/${encodeURIComponent(n.id)}/read`, { method: 'POST' });
      const shown = this.notifications.get(n.id);
      // Unless its notification:read event came first (it carries the server's count).
      if (shown && !shown.read && this.unread) this.unread -= 1;
      if (shown) this.notifications.set(n.id, (data && data.notification) || { ...shown, read: true });
    } catch (error) {
      notify(`Could not mark it read: ${messageOf(error)}`, 'error');
    }
    this.renderCount();
    this.render();
  }

  async markAllRead() {
    const user = currentUser();
    try {
      const data = await api('api/notifications/mark-all-read', { method: 'POST', body: { userId: user } });
      for (const [id, n] of this.notifications) this.notifications.set(id, { ...n, read: true });
      if (data && typeof data.unreadCount === 'number') this.unread = data.unreadCount;
    } catch (error) {
      notify(`Could not mark them read: ${messageOf(error)}`, 'error');
    }
    this.renderCount();
    this.render();
  }

  /** Follow a notification's action (and mark it read). */
  follow(n) {
    const target = n.actionTarget || {};
    let route = null;
    if (n.actionType === 'navigate') route = routeOfPath(target.path);
    else if (n.actionType === 'open_chat' && typeof target.agentId === 'string') route = chatRoute(target.agentId);
    if (!n.read) this.markRead(n);
    if (route === null) {
      if (n.actionType === 'navigate') notify(`The web UI has no page for ${clip(target.path, 80)}.`);
      return;
    }
    this.close();
    window.location.hash = route.slice(1);
  }

  // ------------------------------------------------------------ rendering

  renderCount() {
    const unread = this.unread || 0;
    this.count.hidden = !unread;
    this.count.textContent = unread > 99 ? '99+' : String(unread);
    this.button.dataset.unread = String(unread);
    this.button.setAttribute('aria-label', `Notifications, ${unread} unread`);
    this.button.title = `Notifications (${unread} unread)`;
  }

  renderPerson() {
    const people = allUsers();
    this.personRow.hidden = people.length < 2;
    replaceChildren(this.person, people.map((u) => h('option', { value: u.id },
      `${u.name || u.id}${u.owner ? ' (owner)' : ''}`)));
    this.person.value = currentUser() || '';
  }

  render() {
    const shown = [...this.notifications.values()];
    replaceChildren(this.list, shown.map((n) => this.entry(n)));
    this.empty.hidden = shown.length > 0;
    this.markAll.disabled = !this.unread;
    this.more.hidden = this.total === null || shown.length >= this.total || shown.length >= MAX_SHOWN;
  }

  entry(n) {
    const kind = notificationType(n.type);
    const actionable = n.actionType === 'navigate' || n.actionType === 'open_chat';
    const title = actionable
      ? h('button', { type: 'button', class: 'link-button bell-title', onclick: () => this.follow(n) }, clip(n.title, 140))
      : h('span', { class: 'bell-title' }, clip(n.title, 140));
    return h('li', { class: `bell-entry${n.read ? '' : ' bell-unread'}`, dataset: { id: n.id, read: String(Boolean(n.read)), type: n.type } },
      h('span', { class: 'bell-type-icon', 'aria-hidden': 'true', title: kind.label }, kind.icon),
      h('div', { class: 'bell-main' },
        h('div', { class: 'bell-line' }, title,
          n.read ? null : h('span', { class: 'tag tag-unread' }, 'Unread')),
        n.body ? h('p', { class: 'bell-body' }, clip(n.body, 240)) : null,
        h('p', { class: 'bell-meta' },
          h('span', { class: 'bell-kind' }, kind.label), ' · ',
          h('span', { class: `ntf-priority ntf-priority-${n.priority}` }, n.priority || 'normal'), ' · ',
          h('time', { datetime: n.createdAt || '', title: n.createdAt || '' }, ago(n.createdAt)),
          n.metadata && n.metadata.agentId ? [' · ', h('span', { class: 'bell-agent' }, n.metadata.agentId)] : null)),
      n.read ? null : h('button', {
        type: 'button', class: 'bell-read', 'aria-label': `Mark read: ${clip(n.title, 60)}`, onclick: () => this.markRead(n),
      }, 'Mark read'));
  }
}

/** "just now", "4 min ago", "3 h ago", or the date, of an ISO instant. */
export function ago(iso) {
  const at = Date.parse(iso || '');
  if (Number.isNaN(at)) return '';
  const s = Math.max(0, (Date.now() - at) / 1000);
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return new Date(at).toLocaleDateString();
}
