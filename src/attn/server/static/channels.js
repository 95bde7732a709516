// The channel view (000 §11, §25.2): every channel (DMs between agents, the
// teams of attn.toml, custom groups), filtered by member and kind, a form to
// create a custom group, and one channel (channel.js) beside the list.
// Routes: #/channels and #/channels/<key>[?conversation=<id>].

import { api, query } from './api.js';
import { ChannelPanel, senderName } from './channel.js';
import { clip, h, replaceChildren, throttle, uid } from './dom.js';
import { messageOf } from './notices.js';
import { KIND_LABELS, channelHash } from './receipts.js';

const KINDS = ['dm', 'team', 'custom'];
const LISTED = 1000;

export class ChannelsView {
  /** key: the channel shown (or null); conversationId: narrow it to one conversation. */
  constructor(key = null, conversationId = null) {
    this.filter = { member: null, kind: null };
    this.channels = [];
    this.agents = [];
    this.unread = new Map(); // channel key → messages that arrived while another was shown
    this.generation = 0;
    this.panel = null;
    this.build();
    this.show(key, conversationId);
    this.listSoon = throttle(() => this.loadList(), 400);
    this.agentsSoon = throttle(() => this.loadAgents(), 1000);
  }

  get title() {
    return this.panel ? `${(this.panel.channel && this.panel.channel.name) || this.panel.key} · Channels` : 'Channels';
  }

  get crumbs() {
    const crumbs = [{ label: 'Agents', href: '#/' }, { label: 'Channels', href: '#/channels' }];
    if (this.panel) crumbs.push({ label: (this.panel.channel && this.panel.channel.name) || this.panel.key });
    return crumbs;
  }

  // ------------------------------------------------------------- layout

  build() {
    this.memberSelect = h('select', { id: 'channel-member-filter' });
    this.memberSelect.addEventListener('change', () => this.setFilter({ member: this.memberSelect.value || null }));
    this.kindChips = h('div', { class: 'chips', role: 'group', 'aria-label': 'Filter by kind' });
    this.listError = h('p', { class: 'load-error', role: 'alert', hidden: true });
    this.listEmpty = h('p', { class: 'muted', hidden: true }, 'No channel matches.');
    this.list = h('ul', { class: 'channel-list', 'aria-label': 'Channels' });
    this.listMore = h('p', { class: 'muted', hidden: true });
    const sidebar = h('section', { class: 'channel-sidebar panel', 'aria-labelledby': 'channels-heading' },
      h('h2', { id: 'channels-heading' }, 'Channels'),
      h('div', { class: 'filter-row' },
        h('label', { class: 'filter-name', for: 'channel-member-filter' }, 'Member'), this.memberSelect),
      h('div', { class: 'filter-row' }, h('span', { class: 'filter-name', 'aria-hidden': 'true' }, 'Kind'),
        this.kindChips),
      this.listError, this.listEmpty, this.list, this.listMore, this.groupForm());
    this.main = h('div', { class: 'channel-main' });
    this.el = h('div', { class: 'channels' }, sidebar, this.main);
    this.renderFilters();
  }

  groupForm() {
    const nameId = uid('group-name');
    this.groupName = h('input', { id: nameId, name: 'name', type: 'text', required: true, maxlength: '200', autocomplete: 'off' });
    this.groupMembers = h('div', { class: 'group-members' });
    this.groupError = h('p', { class: 'post-error', role: 'alert', hidden: true });
    this.groupButton = h('button', { type: 'submit', class: 'primary' }, 'Create group');
    const form = h('form', { class: 'group-form' },
      h('label', { for: nameId }, 'Group name'), this.groupName,
      h('fieldset', null, h('legend', null, 'Members'), this.groupMembers),
      this.groupError, this.groupButton);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.createGroup();
    });
    this.groupDetails = h('details', { class: 'new-group' }, h('summary', null, 'New group…'), form);
    return this.groupDetails;
  }

  /** Show channel `key` (null: none) beside the list. */
  show(key, conversationId) {
    if (this.panel) this.panel.destroy();
    this.panel = key ? new ChannelPanel(key, conversationId) : null;
    if (key) this.unread.delete(key);
    replaceChildren(this.main, this.panel ? this.panel.el
      : h('section', { class: 'panel channel-placeholder' },
        h('h1', null, 'Channels'),
        h('p', { class: 'muted' }, 'Choose a channel to read its history and post to it.')));
    this.renderList();
  }

  /** A route change inside the channel view: keep the list, swap the channel. */
  navigate(key, conversationId) {
    this.show(key, conversationId);
    if (this.panel) this.panel.load().then(() => this.titleChanged());
    return true;
  }

  titleChanged() {
    this.onTitle?.();
  }

  // ------------------------------------------------------------- loading

  async load() {
    const loads = [this.loadList(), this.loadAgents()];
    if (this.panel) loads.push(this.panel.load().then(() => this.titleChanged()));
    await Promise.all(loads);
  }

  async loadList() {
    const generation = ++this.generation;
    try {
      const data = await api(`api/channels${query({ ...this.filter, limit: LISTED })}`);
      if (generation !== this.generation) return;
      this.channels = data.channels || [];
      this.total = typeof data.count === 'number' ? data.count : this.channels.length;
      this.listError.hidden = true;
      this.renderList();
      this.renderMemberOptions();
    } catch (error) {
      if (generation !== this.generation) return;
      this.listError.textContent = `Could not load the channels: ${messageOf(error)}`;
      this.listError.hidden = false;
    }
  }

  async loadAgents() {
    try {
      const data = await api('api/agents');
      this.agents = (data.agents || []).map((agent) => agent.agentId);
      this.renderMemberOptions();
      this.renderGroupMembers();
    } catch (error) {
      this.listError.textContent = `Could not load the agents: ${messageOf(error)}`;
      this.listError.hidden = false;
    }
  }

  setFilter(change) {
    Object.assign(this.filter, change);
    this.renderFilters();
    this.loadList();
  }

  // ------------------------------------------------------------- rendering

  renderFilters() {
    const chip = (label, value) => h('button', {
      type: 'button', class: 'chip', 'aria-pressed': String(this.filter.kind === value),
      dataset: { value: value || '' }, onclick: () => this.setFilter({ kind: value }),
    }, h('span', { class: 'chip-label' }, label));
    replaceChildren(this.kindChips, chip('All', null), KINDS.map((kind) => chip(KIND_LABELS[kind], kind)));
  }

  renderMemberOptions() {
    const names = new Set(this.agents);
    for (const channel of this.channels) for (const member of channel.members || []) names.add(member);
    if (this.filter.member) names.add(this.filter.member);
    const sorted = [...names].sort();
    const current = this.filter.member || '';
    const wanted = ['', ...sorted].join('\n');
    if (this.memberSelect.dataset.options !== wanted) {
      this.memberSelect.dataset.options = wanted;
      replaceChildren(this.memberSelect, h('option', { value: '' }, 'Any member'),
        sorted.map((name) => h('option', { value: name }, name)));
    }
    this.memberSelect.value = current;
  }

  renderList() {
    const selected = this.panel ? this.panel.key : null;
    replaceChildren(this.list, this.channels.map((channel) => {
      const unread = this.unread.get(channel.key) || 0;
      return h('li', { class: 'channel-entry', dataset: { channel: channel.key, kind: channel.kind } },
        h('a', { href: channelHash(channel.key), 'aria-current': channel.key === selected ? 'page' : null },
          h('span', { class: `kind-badge kind-${channel.kind}` }, KIND_LABELS[channel.kind] || channel.kind), ' ',
          h('span', { class: 'channel-name' }, clip(channel.name || channel.key, 60)),
          unread ? h('span', { class: 'unread', title: `${unread} new` }, String(unread),
            h('span', { class: 'sr-only' }, ' new')) : null),
        h('span', { class: 'channel-members muted' }, clip((channel.members || []).join(', '), 80)));
    }));
    this.listEmpty.hidden = this.channels.length > 0;
    this.listMore.hidden = !(this.total > this.channels.length);
    this.listMore.textContent = `Showing ${this.channels.length} of ${this.total} channels; filter by member or kind.`;
  }

  renderGroupMembers() {
    const checked = new Set([...this.groupMembers.querySelectorAll('input:checked')].map((input) => input.value));
    replaceChildren(this.groupMembers, this.agents.length
      ? this.agents.map((name) => {
        const id = uid('group-member');
        return h('div', { class: 'group-member' },
          h('input', { type: 'checkbox', id, name: 'members', value: name, checked: checked.has(name) }),
          h('label', { for: id }, name));
      })
      : h('p', { class: 'muted' }, 'No agents are hosted.'));
  }

  // ------------------------------------------------------------- actions

  async createGroup() {
    const name = this.groupName.value.trim();
    const members = [...this.groupMembers.querySelectorAll('input:checked')].map((input) => input.value);
    this.groupError.hidden = true;
    if (!name || !members.length) {
      this.groupError.textContent = !name ? 'Give the group a name.' : 'Choose at least one member.';
      this.groupError.hidden = false;
      return;
    }
    this.groupButton.disabled = true;
    try {
      const channel = await api('api/channels', { method: 'POST', body: { name, members, createdBy: senderName() } });
      this.groupName.value = '';
      for (const input of this.groupMembers.querySelectorAll('input:checked')) input.checked = false;
      this.groupDetails.open = false;
      this.listSoon();
      window.location.hash = channelHash(channel.key);
    } catch (error) {
      this.groupError.textContent = `Could not create the group: ${messageOf(error)}`;
      this.groupError.hidden = false;
    } finally {
      this.groupButton.disabled = false;
    }
  }

  // ------------------------------------------------------------- live

  onEvents(frames) {
    let list = false;
    for (const frame of frames) {
      const data = frame.data || {};
      switch (frame.event) {
        case 'channel:created':
          list = true;
          if (this.panel) this.panel.onChannel(data.channel);
          break;
        case 'channel:message': {
          const message = data.message;
          if (!message) break;
          if (this.panel && this.panel.key === message.channelKey) this.panel.onMessage(message);
          else if (!this.seen(message)) {
            this.unread.set(message.channelKey, (this.unread.get(message.channelKey) || 0) + 1);
            list = true;
          }
          break;
        }
        case 'agent:created':
        case 'agent:removed':
          this.agentsSoon();
          break;
        default:
          break;
      }
    }
    if (list) {
      this.renderList();
      this.listSoon();
    }
  }

  /** Whether a message's event is a repeat (its deliveries were stored again). */
  seen(message) {
    this.seenIds = this.seenIds || new Set();
    if (this.seenIds.has(message.id)) return true;
    if (this.seenIds.size > 5000) this.seenIds.clear();
    this.seenIds.add(message.id);
    return false;
  }

  destroy() {
    this.generation += 1;
    this.listSoon.cancel();
    this.agentsSoon.cancel();
    if (this.panel) this.panel.destroy();
  }
}
