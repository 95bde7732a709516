// The Agent Mind view of one agent (000 §9, UI-02..06): the attention state
// header with the current focus and how long it has run, the controls, the
// approvals it waits on, the queue (queue.js), category and status filter
// chips with counts (filters.js), the mailbox timeline and the chat panel on
// its main session. One scrollable page, kept current by live events.

import { ApiError, agentPath, api, query } from './api.js';
import { AgentApprovals } from './approvals.js';
import { ChatPanel } from './chat.js';
import { AgentControls } from './controls.js';
import {
  STATE_LABELS, TERMINAL, clip, formatDuration, h, priorityText, replaceChildren, secondsSince, throttle,
} from './dom.js';
import { ALL_STATUSES, FilterPanel } from './filters.js';
import { HistoryPanel } from './history.js';
import { messageOf, notify } from './notices.js';
import { QueuePanel } from './queue.js';
import { keyOf } from './timeline.js';
import { runBadge, treeHash } from './treeparts.js';
import { onTypesChanged, typeBadge } from './types.js';

const KNOWN_LIMIT = 50_000;
const PICKS = new Set(['pick', 'triage']);

export class MindView {
  /** openChat: put the keyboard in the chat box once shown (a notification's open_chat). */
  constructor(name, { openChat = false } = {}) {
    this.name = name;
    this.openChat = openChat;
    this.title = `${name} · Agent Mind`;
    this.crumbs = [{ label: 'Agents', href: '#/' }, { label: name }];
    this.mind = null;
    this.mindFailed = false;
    this.known = new Map(); // item id → last status seen (terminal statuses are final)
    this.generation = { mind: 0 };
    /** Changes events made to the attention state; a /mind snapshot older than one is dropped. */
    this.liveChanges = 0;
    this.destroyed = false;
    this.history = new HistoryPanel(name, {
      mailboxQuery: (extra) => this.mailboxQuery(extra),
      applyItem: (item, extra) => this.applyItem(item, extra),
    });
    this.timeline = this.history.timeline;
    this.chat = new ChatPanel(name, { onReveal: (id) => this.history.reveal(id) });
    this.queuePanel = new QueuePanel();
    this.approvals = new AgentApprovals(name);
    this.filters = new FilterPanel(name, () => this.filtersChanged());
    this.controls = new AgentControls(name, { reload: () => this.loadMind(), reloadSoon: () => this.mindSoon() });
    this.build();
    this.countsSoon = throttle(() => this.filters.loadCounts(), 1000);
    this.reconcileSoon = throttle(() => this.history.reconcile(), 1500);
    this.mindSoon = throttle(() => this.loadMind(), 400);
    this.treeSoon = throttle(() => this.loadTree(), 1000);
    this.ticker = setInterval(() => this.tick(), 1000);
    this.unsubscribeTypes = onTypesChanged(() => this.typesChanged());
  }

  // ------------------------------------------------------------- layout

  build() {
    const name = this.name;
    this.stateBadge = h('span', { class: 'state-badge state-idle' }, 'Idle');
    this.flags = h('span', { class: 'flags' });
    this.description = h('p', { class: 'agent-description', hidden: true });
    this.treeLine = h('p', { class: 'tree-line', hidden: true });
    this.focusLine = h('p', { class: 'focus-line' });
    this.depthLine = h('p', { class: 'depth-line' });
    const reload = h('button', {
      type: 'button', class: 'icon-button', title: 'Reload from the server',
      'aria-label': 'Reload from the server', onclick: () => this.load(),
    }, h('span', { 'aria-hidden': 'true' }, '↻'));
    this.loadError = h('p', { class: 'load-error', role: 'alert', hidden: true });
    const header = h('header', { class: 'attention panel', 'aria-labelledby': 'mind-heading' },
      h('div', { class: 'attention-top' },
        h('h1', { id: 'mind-heading' }, name, h('span', { class: 'sr-only' }, ' — Agent Mind')),
        this.stateBadge, this.flags, reload),
      this.description, this.treeLine, this.loadError, this.focusLine, this.depthLine, this.controls.el);

    const queue = this.queuePanel.el;

    this.el = h('div', { class: 'mind', dataset: { agent: name } },
      header, this.approvals.el, queue, this.chat.el, this.filters.el, this.history.el);
    this.renderHeader();
  }

  // ------------------------------------------------------------- loading

  /** Load everything over REST (first show, ↻, and after a resync). */
  async load() {
    if (this.openChat) {
      this.openChat = false;
      // After the router moved the keyboard to the page (app.js, hashchange).
      setTimeout(() => this.chat.focus(), 0);
    }
    await Promise.all([this.loadMind(), this.history.load(true), this.filters.loadCounts(), this.loadTree(),
      this.chat.load(true), this.approvals.load()]);
  }

  /** The spawn tree the agent belongs to (seed 002), linked to its tree view. */
  async loadTree() {
    let tree = null;
    try {
      tree = (await api(agentPath(this.name))).tree || null;
    } catch {
      return; // the header says what went wrong with the agent
    }
    if (this.destroyed) return;
    this.treeLine.hidden = !tree;
    replaceChildren(this.treeLine, tree
      ? [tree.path === '/root' ? 'Root of the spawn tree ' : 'In the spawn tree ',
        h('a', { href: treeHash(tree.treeId, this.name) }, tree.treeId),
        tree.path === '/root' ? ' ' : [' at ', h('code', null, tree.path), ' '], runBadge(tree.state)]
      : null);
  }

  async loadMind() {
    const generation = ++this.generation.mind;
    const changes = this.liveChanges;
    try {
      const mind = await api(agentPath(this.name, '/mind'));
      if (generation !== this.generation.mind || this.destroyed) return;
      if (this.mind && changes !== this.liveChanges) {
        // Events changed the state while this snapshot was on its way: it may
        // be older than them (a cancel's IDLE undone by a FOCUSED snapshot).
        this.mindSoon();
        return;
      }
      this.mind = mind;
      this.mindFailed = false;
      // /mind lists at most 1,000 queued and deferred items; the counts cover them all.
      this.queuePanel.snapshot(mind);
      this.loadError.hidden = true;
      this.renderHeader();
      this.renderQueue();
    } catch (error) {
      if (generation !== this.generation.mind || this.destroyed) return;
      this.showLoadError(error);
    }
  }

  showLoadError(error) {
    if (error instanceof ApiError && error.code === 'unknown_agent') {
      replaceChildren(this.loadError, `There is no agent named "${clip(this.name, 80)}". `,
        h('a', { href: '#/' }, 'See all agents'));
    } else {
      this.loadError.textContent = `Could not load this agent: ${messageOf(error)}`;
    }
    this.loadError.hidden = false;
    this.mindFailed = true;
    this.renderHeader();
  }

  mailboxQuery(extra) {
    const { category, type, status } = this.filters.filter;
    return agentPath(this.name, `/mailbox${query({ category, type, status: status || ALL_STATUSES, ...extra })}`);
  }

  // ------------------------------------------------------------- live events

  onEvents(frames) {
    const approvals = [];
    let items = false;
    let control = false;
    let header = false;
    for (const frame of frames) {
      if (frame.agentId !== this.name) continue;
      const data = frame.data || {};
      switch (frame.event) {
        case 'agent:mailbox':
        case 'agent:item':
          if (data.item) this.applyItem(data.item);
          items = true;
          break;
        case 'agent:decision':
          if (data.decision) {
            this.timeline.addDecision(data.decision);
            if (PICKS.has(data.decision.decisionType)) {
              this.picked(data.decision);
              header = true;
              control = true; // the /mind snapshot confirms the new focus
            }
          }
          items = true;
          break;
        case 'agent:attention':
          this.liveChanges += 1;
          if (this.mind) {
            this.mind.state = data.state || this.mind.state;
            this.mind.currentFocus = data.currentFocus || null;
          }
          if (data.currentFocus) this.applyItem(data.currentFocus);
          header = true;
          break;
        case 'agent:focus':
          this.liveChanges += 1;
          if (this.mind) {
            this.mind.currentFocus = data.currentFocus || null;
            if (typeof data.queueDepth === 'number') this.mind.queueDepth = data.queueDepth;
          }
          if (data.currentFocus) this.applyItem(data.currentFocus);
          header = true;
          break;
        case 'agent:incomplete':
          notify(`${this.name}: item ${data.mailboxItemId || ''} incomplete: ${data.reason || 'no reason given'}`);
          break;
        case 'agent:started':
        case 'agent:stopped':
        case 'agent:paused':
        case 'agent:resumed':
          control = true;
          break;
        case 'agent:removed':
          notify(`Agent ${this.name} was removed from the server.`, 'error');
          break;
        case 'approval:requested':
        case 'approval:answered':
          approvals.push(frame);
          break;
        case 'session:message':
          this.chat.onMessage(data.message);
          break;
        case 'tree:spawned':
        case 'tree:removed':
        case 'tree:agent-state':
          this.treeSoon();
          break;
        default:
          break;
      }
    }
    if (items) {
      this.renderQueue();
      this.countsSoon();
      this.reconcileSoon();
      this.history.renderInfo();
    }
    if (header || items) this.renderHeader();
    if (control) this.mindSoon();
    if (approvals.length) this.approvals.onEvents(approvals);
  }

  applyItem(item, { decisions, activity } = {}) {
    const previous = this.known.get(item.id);
    // Terminal statuses are final (000 §6.5): a late event cannot undo one.
    if (previous && TERMINAL.has(previous) && !TERMINAL.has(item.status)) return;
    if (this.known.size > KNOWN_LIMIT) this.known.clear();
    this.known.set(item.id, item.status);
    this.queuePanel.apply(item);
    if (this.mind && this.mind.currentFocus && this.mind.currentFocus.id === item.id) {
      this.mind.currentFocus = item.status === 'processing' ? item : this.mind.currentFocus;
    }
    if (this.matches(item)) {
      if (this.timeline.has(item.id) || this.history.accepts(keyOf(item)) || decisions) {
        this.timeline.upsert(item, { decisions, activity });
      }
    } else {
      this.timeline.remove(item.id);
    }
  }

  /**
   * A pick starts processing. The focus events only follow attention state
   * changes, so a pick straight after a preemption (focused → focused) is
   * known from the decision alone until the /mind snapshot confirms it.
   */
  picked(decision) {
    const id = decision.mailboxItemId;
    const record = this.timeline.get(id);
    const item = this.queuePanel.get(id) || (record && record.item);
    if (!item || TERMINAL.has(item.status)) return;
    const started = { ...item, status: 'processing', startedAt: decision.createdAt || item.startedAt };
    this.applyItem(started);
    this.liveChanges += 1;
    if (this.mind) {
      this.mind.state = 'focused';
      this.mind.currentFocus = started;
    }
  }

  matches(item) {
    return this.filters.matches(item);
  }

  // ------------------------------------------------------------- rendering

  renderHeader() {
    const mind = this.mind;
    const state = (mind && mind.state) || 'idle';
    this.stateBadge.className = `state-badge state-${state}`;
    this.stateBadge.dataset.state = state;
    this.stateBadge.textContent = (STATE_LABELS[state] || state).toUpperCase();
    const running = mind ? mind.running : true;
    const paused = mind ? mind.paused : false;
    replaceChildren(this.flags,
      mind && !running ? h('span', { class: 'flag flag-stopped' }, 'Stopped') : null,
      mind && running && paused ? h('span', { class: 'flag flag-paused' }, 'Paused') : null);
    if (mind) {
      this.description.textContent = mind.description || '';
      this.description.hidden = !mind.description;
    }
    const focus = mind && mind.currentFocus;
    // The key names every state the line can show, so it leaves "Loading…" once
    // the first snapshot (or its failure) arrives, also for an idle agent.
    const waiting = mind ? 'none' : (this.mindFailed ? 'failed' : 'loading');
    const key = focus ? `${focus.id}|${focus.summary}|${focus.startedAt}|${focus.sourceType}` : waiting;
    if (this.focusLine.dataset.key !== key) {
      this.focusLine.dataset.key = key;
      replaceChildren(this.focusLine, focus
        ? [h('span', { class: 'label' }, 'Focused on: '), typeBadge(focus.sourceType), ' ',
          h('q', { class: 'summary' }, clip(focus.summary, 140)), ' ',
          h('span', { class: 'priority' }, priorityText(focus.priority)), ' ',
          h('span', { class: 'elapsed', dataset: { since: focus.startedAt || '' } },
            focus.startedAt ? `for ${formatDuration(secondsSince(focus.startedAt))}` : '')]
        : h('span', { class: 'muted' }, {
          none: 'Not focused on anything.', failed: 'Focus not known (see above).', loading: 'Loading…',
        }[waiting]));
    }
    const depth = this.queuePanel.depth;
    this.depthLine.dataset.depth = String(depth);
    this.depthLine.textContent = `Queue: ${depth} ${depth === 1 ? 'item' : 'items'} waiting`;
    this.controls.render(mind);
  }

  renderQueue() {
    this.queuePanel.render();
  }

  tick() {
    for (const span of this.el.querySelectorAll('.elapsed[data-since]')) {
      if (span.dataset.since) span.textContent = `for ${formatDuration(secondsSince(span.dataset.since))}`;
    }
  }

  typesChanged() {
    this.filters.render();
    this.countsSoon();
    for (const id of this.timeline.ids()) {
      const record = this.timeline.get(id);
      record.signature = null;
      this.timeline.paint(record);
    }
    this.renderQueue();
    this.focusLine.dataset.key = '';
    this.renderHeader();
  }

  filtersChanged() {
    this.history.clear();
    this.history.load(true);
    this.filters.loadCounts();
  }

  destroy() {
    this.destroyed = true;
    clearInterval(this.ticker);
    this.countsSoon.cancel();
    this.reconcileSoon.cancel();
    this.mindSoon.cancel();
    this.treeSoon.cancel();
    this.unsubscribeTypes();
    this.chat.destroy();
    this.approvals.destroy();
    this.filters.destroy();
    this.history.destroy();
  }
}
