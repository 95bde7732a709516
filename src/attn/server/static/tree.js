// One spawn tree (seed 002), route #/trees/<treeId>[?agent=<agentId>]: its
// turn slots in use with the holders named, every agent indented by its path
// with its run state (idle, running, waiting, stopped), unread mail and
// read-only flag, and the selected agent beside it (tree_agent.js: its
// actions and the RESULTs it received).
//
// Live: `tree:agent-state` updates a row at once (state, unread, read-only,
// slots in use); `tree:spawned`, `tree:removed` and `tree:result` and every
// state change also re-read the tree (throttled) for the holders and the
// waiting list, and a RESULT to the selected agent re-reads its results.

import { api } from './api.js';
import { clip, h, replaceChildren, throttle } from './dom.js';
import { messageOf } from './notices.js';
import { AgentPanel } from './tree_agent.js';
import { TranscriptDialog } from './tree_results.js';
import { runBadge, slotsBlock, treeHash } from './treeparts.js';

export class TreeView {
  /** treeId: the root agent's id; agentId: the agent shown beside the tree (default the root). */
  constructor(treeId, agentId = null) {
    this.treeId = treeId;
    this.wanted = agentId || treeId;
    this.nodes = new Map(); // agent id → node view, parents first
    this.rows = new Map(); // agent id → row element
    this.slots = null;
    this.panel = null;
    this.generation = 0;
    this.loaded = false;
    this.destroyed = false;
    this.transcript = new TranscriptDialog();
    this.build();
    this.reloadSoon = throttle(() => this.loadTree(), 300);
    this.resultsSoon = throttle(() => this.panel && this.panel.load(), 300);
  }

  get title() {
    return `${this.treeId} · Trees`;
  }

  get crumbs() {
    return [{ label: 'Agents', href: '#/' }, { label: 'Trees', href: '#/trees' }, { label: this.treeId }];
  }

  build() {
    this.slotsLine = h('div', { class: 'tree-slots' });
    this.loadError = h('p', { class: 'load-error', role: 'alert', hidden: true });
    const header = h('header', { class: 'panel tree-header', 'aria-labelledby': 'tree-heading' },
      h('h1', { id: 'tree-heading' }, 'Tree ', h('code', null, this.treeId)),
      this.slotsLine, this.loadError);
    this.list = h('ul', { class: 'tree-nodes', 'aria-label': `Agents of tree ${this.treeId}, parents first` });
    const agents = h('section', { class: 'panel tree-agents', 'aria-labelledby': 'tree-agents-heading' },
      h('h2', { id: 'tree-agents-heading' }, 'Agents'), this.list,
      h('p', { class: 'hint' }, 'Choose an agent to mail it, interrupt, start or stop it, spawn a child, or read its RESULTs.'));
    this.side = h('div', { class: 'tree-side' });
    this.el = h('div', { class: 'tree-view', dataset: { tree: this.treeId } },
      header, h('div', { class: 'tree-body' }, agents, this.side), this.transcript.el);
  }

  // ------------------------------------------------------------- loading

  async load() {
    await this.loadTree();
    if (this.panel) await this.panel.load();
  }

  async loadTree() {
    const generation = ++this.generation;
    try {
      const data = await api(`api/trees/${encodeURIComponent(this.treeId)}`);
      if (generation !== this.generation || this.destroyed) return;
      this.loadError.hidden = true;
      this.apply(data);
    } catch (error) {
      if (generation !== this.generation || this.destroyed) return;
      if (error && error.status === 404) {
        replaceChildren(this.loadError, `There is no spawn tree with the id ${clip(this.treeId, 80)}. `,
          h('a', { href: '#/trees' }, 'See all trees'));
      } else {
        this.loadError.textContent = `Could not load this tree: ${messageOf(error)}`;
      }
      this.loadError.hidden = false;
    }
  }

  apply(data) {
    const { agents = [], ...slots } = data;
    this.slots = slots;
    this.nodes = new Map(agents.map((node) => [node.agentId, node]));
    this.renderSlots();
    this.renderRows();
    this.loaded = true;
    if (!this.nodes.has(this.wanted)) this.wanted = this.treeId;
    this.showAgent();
  }

  // ------------------------------------------------------------- rendering

  renderSlots() {
    if (!this.slots) return;
    replaceChildren(this.slotsLine, slotsBlock(this.slots));
  }

  renderRows() {
    for (const [id, row] of [...this.rows]) {
      if (!this.nodes.has(id)) {
        row.remove();
        this.rows.delete(id);
      }
    }
    [...this.nodes.values()].forEach((node, index) => {
      let row = this.rows.get(node.agentId);
      if (!row) {
        row = h('li', { class: 'tree-node', dataset: { agent: node.agentId } });
        this.rows.set(node.agentId, row);
      }
      if (this.list.children[index] !== row) this.list.insertBefore(row, this.list.children[index] || null);
      this.paintRow(node);
    });
  }

  paintRow(node) {
    const row = this.rows.get(node.agentId);
    if (!row) return;
    const depth = Math.max(0, (node.path || '/root').split('/').length - 2);
    const slots = this.slots || {};
    const holds = (slots.holders || []).includes(node.path);
    row.dataset.depth = String(depth);
    row.dataset.state = node.state || 'idle';
    row.style.setProperty('--depth', String(Math.min(depth, 8)));
    const name = depth === 0 ? node.agentId : (node.path || '').split('/').pop();
    const selected = node.agentId === this.wanted;
    replaceChildren(row,
      h('a', { class: 'node-select', href: treeHash(this.treeId, node.agentId), 'aria-current': selected ? 'true' : null },
        h('span', { class: 'node-name' }, name), ' ',
        h('code', { class: 'tree-path' }, node.path)),
      h('span', { class: 'node-facts' },
        runBadge(node.state),
        node.unread ? h('span', { class: 'unread', dataset: { unread: String(node.unread) } }, `${node.unread} unread`) : null,
        node.readOnly ? h('span', { class: 'flag flag-readonly' }, 'read-only') : null,
        node.plan ? h('span', { class: 'flag flag-plan' }, 'Plan mode') : null,
        holds ? h('span', { class: 'flag flag-slot' }, 'holds a slot') : null,
        node.description ? h('span', { class: 'node-role muted' }, clip(node.description, 60)) : null));
  }

  /** Show the wanted agent beside the tree (a new panel only when it changed). */
  showAgent() {
    const node = this.nodes.get(this.wanted);
    if (!node) {
      if (this.panel) this.panel.destroy();
      this.panel = null;
      replaceChildren(this.side);
      return;
    }
    if (this.panel && this.panel.id === node.agentId) {
      this.panel.update(node);
      return;
    }
    if (this.panel) this.panel.destroy();
    this.panel = new AgentPanel(this, node, this.transcript);
    replaceChildren(this.side, this.panel.el);
    this.panel.load();
  }

  /** A route change inside this tree: another agent beside it. */
  navigate(agentId) {
    this.wanted = agentId || this.treeId;
    for (const node of this.nodes.values()) this.paintRow(node);
    if (this.loaded) this.showAgent();
  }

  /** The agent and every agent below it, by path. */
  subtreeOf(agentId) {
    const node = this.nodes.get(agentId);
    if (!node) return [];
    return [...this.nodes.values()].filter((n) => n.path === node.path || n.path.startsWith(`${node.path}/`));
  }

  afterRemove(agentId) {
    if (agentId === this.wanted) window.location.hash = treeHash(this.treeId);
    this.reloadSoon();
  }

  // ------------------------------------------------------------- live

  onEvents(frames) {
    let reload = false;
    let results = false;
    for (const frame of frames) {
      const data = frame.data || {};
      switch (frame.event) {
        case 'tree:agent-state': {
          if (data.treeId !== this.treeId) break;
          const node = this.nodes.get(data.agentId);
          if (node) {
            Object.assign(node, { state: data.state, unread: data.unread, readOnly: data.readOnly });
            this.paintRow(node);
            if (this.panel && this.panel.id === node.agentId) this.panel.update(node);
          }
          if (this.slots) {
            this.slots.slotsInUse = data.slotsInUse;
            if (typeof data.capacity === 'number') this.slots.capacity = data.capacity;
            this.renderSlots();
          }
          reload = true; // the holders and the waiting list
          break;
        }
        case 'tree:spawned':
        case 'tree:removed':
          if (data.node && data.node.treeId === this.treeId) reload = true;
          break;
        case 'tree:result':
          if (this.nodes.has(data.to) || this.nodes.has(data.from)) reload = true;
          if (this.panel && this.panel.id === data.to) results = true;
          break;
        default:
          break;
      }
    }
    if (reload) this.reloadSoon();
    if (results) this.resultsSoon();
  }

  destroy() {
    this.destroyed = true;
    this.generation += 1;
    this.reloadSoon.cancel();
    this.resultsSoon.cancel();
    if (this.panel) this.panel.destroy();
    this.transcript.destroy();
  }
}
