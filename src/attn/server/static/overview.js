// The start page (UI-01): every agent with its attention state, its focus
// and its queue depth, kept current by the live events.

import { api } from './api.js';
import { STATE_LABELS, clip, formatDuration, h, replaceChildren, secondsSince, throttle } from './dom.js';
import { messageOf } from './notices.js';
import { runBadge, treeHash } from './treeparts.js';
import { typeBadge } from './types.js';

export class OverviewView {
  constructor() {
    this.title = 'Agents';
    this.crumbs = [];
    this.agents = new Map();
    this.cards = new Map();
    this.generation = 0;
    this.list = h('ul', { class: 'agent-list', 'aria-labelledby': 'agents-heading' });
    this.empty = h('p', { class: 'empty', hidden: true }, 'No agents are hosted by this server.');
    this.error = h('p', { class: 'load-error', role: 'alert', hidden: true });
    this.el = h('section', { class: 'overview' },
      h('h1', { id: 'agents-heading' }, 'Agents'),
      this.error, this.empty, this.list);
    this.refreshSoon = throttle(() => this.load(), 400);
    this.ticker = setInterval(() => this.tick(), 1000);
  }

  async load() {
    const generation = ++this.generation;
    try {
      const data = await api('api/agents');
      if (generation !== this.generation) return;
      this.error.hidden = true;
      this.setAgents(data.agents || []);
    } catch (error) {
      if (generation !== this.generation) return;
      this.error.textContent = `Could not load the agents: ${messageOf(error)}`;
      this.error.hidden = false;
    }
  }

  setAgents(agents) {
    const names = new Set(agents.map((a) => a.agentId));
    for (const name of [...this.cards.keys()]) {
      if (!names.has(name)) {
        this.cards.get(name).remove();
        this.cards.delete(name);
        this.agents.delete(name);
      }
    }
    agents.forEach((agent, index) => {
      this.agents.set(agent.agentId, agent);
      let card = this.cards.get(agent.agentId);
      if (!card) {
        card = h('li', { class: 'agent-card', dataset: { agent: agent.agentId } });
        this.cards.set(agent.agentId, card);
      }
      if (this.list.children[index] !== card) this.list.insertBefore(card, this.list.children[index] || null);
      this.render(agent);
    });
    this.empty.hidden = agents.length > 0;
  }

  render(agent) {
    const card = this.cards.get(agent.agentId);
    if (!card) return;
    // The card's elements are made once and updated in place, so keyboard
    // focus on the link survives live updates.
    if (!card.parts) {
      const parts = {
        badge: h('span', { class: 'state-badge' }),
        flags: h('span', { class: 'flags' }),
        description: h('p', { class: 'agent-description' }),
        focus: h('p', { class: 'agent-focus' }),
        depth: h('p', { class: 'agent-depth' }),
        tree: h('p', { class: 'agent-tree', hidden: true }),
      };
      card.parts = parts;
      replaceChildren(card,
        h('div', { class: 'agent-card-head' },
          h('h2', { class: 'agent-name' },
            h('a', { href: `#/agents/${encodeURIComponent(agent.agentId)}` }, agent.agentId)),
          parts.badge, parts.flags),
        parts.description, parts.focus, parts.depth, parts.tree);
    }
    const { badge, flags, description, focus: focusLine, depth: depthLine } = card.parts;
    treeLine(card.parts.tree, agent);
    const state = agent.state || 'idle';
    badge.className = `state-badge state-${state}`;
    badge.dataset.state = state;
    badge.textContent = STATE_LABELS[state] || state;
    replaceChildren(flags,
      !agent.running ? h('span', { class: 'flag flag-stopped' }, 'Stopped')
        : agent.paused ? h('span', { class: 'flag flag-paused' }, 'Paused') : null,
      agent.external ? h('span', { class: 'flag flag-external', title: 'Its turns run in an MCP client (Claude Code, Codex…): it works on what it claims' }, 'External (MCP)') : null);
    description.textContent = agent.description || '';
    description.hidden = !agent.description;
    const focus = agent.currentFocus;
    const focusKey = focus ? `${focus.id}|${focus.summary}|${focus.startedAt}` : '';
    if (focusLine.dataset.key !== focusKey) {
      focusLine.dataset.key = focusKey;
      replaceChildren(focusLine, focus
        ? [h('span', { class: 'label' }, 'Focused on: '), typeBadge(focus.sourceType), ' ',
          h('q', { class: 'summary' }, clip(focus.summary, 90)), ' ',
          h('span', { class: 'elapsed', dataset: { since: focus.startedAt || '' } },
            focus.startedAt ? `for ${formatDuration(secondsSince(focus.startedAt))}` : '')]
        : h('span', { class: 'muted' }, 'Not focused on anything'));
    }
    const depth = agent.queueDepth ?? 0;
    depthLine.dataset.depth = String(depth);
    replaceChildren(depthLine, h('span', { class: 'depth-number' }, String(depth)),
      depth === 1 ? ' item queued' : ' items queued');
  }

  tick() {
    for (const span of this.el.querySelectorAll('.elapsed[data-since]')) {
      if (span.dataset.since) span.textContent = `for ${formatDuration(secondsSince(span.dataset.since))}`;
    }
  }

  onEvents(frames) {
    let reload = false;
    for (const frame of frames) {
      const agent = frame.agentId ? this.agents.get(frame.agentId) : null;
      const data = frame.data || {};
      switch (frame.event) {
        case 'agent:attention':
          if (agent) {
            agent.state = data.state || agent.state;
            agent.currentFocus = focusOf(data.currentFocus);
            this.render(agent);
          }
          break;
        case 'agent:focus':
          if (agent) {
            agent.currentFocus = focusOf(data.currentFocus);
            if (typeof data.queueDepth === 'number') agent.queueDepth = data.queueDepth;
            this.render(agent);
          }
          break;
        case 'agent:created':
        case 'agent:removed':
          reload = true;
          break;
        default:
          // Enqueues, status changes and control events change the depth or
          // the flags: one listing call brings every card up to date.
          if (frame.agentId) reload = true;
      }
    }
    if (reload) this.refreshSoon();
  }

  destroy() {
    clearInterval(this.ticker);
    this.refreshSoon.cancel();
    this.generation += 1;
  }
}

/** "Tree lead at /root/ada · Running · 2 unread" for an agent of a spawn tree (seed 002). */
function treeLine(line, agent) {
  const tree = agent.tree;
  const key = tree ? `${tree.treeId}|${tree.path}|${tree.state}|${tree.unread}` : '';
  if (line.dataset.key === key) return;
  line.dataset.key = key;
  line.hidden = !tree;
  replaceChildren(line, tree
    ? [h('span', { class: 'label' }, tree.path === '/root' ? 'Root of tree ' : 'In tree '),
      h('a', { href: treeHash(tree.treeId, agent.agentId) }, tree.treeId),
      tree.path === '/root' ? null : [' at ', h('code', { class: 'tree-path' }, tree.path)], ' ',
      runBadge(tree.state),
      tree.unread ? ` ${tree.unread} unread` : null]
    : null);
}

function focusOf(item) {
  if (!item) return null;
  return {
    id: item.id,
    sourceType: item.sourceType,
    priority: item.priority,
    summary: item.summary,
    startedAt: item.startedAt,
  };
}
