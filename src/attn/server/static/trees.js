// The list of spawn trees (seed 002), route #/trees: each tree's root, its
// slots in use ("2 / 3", with the holders named) and how many agents it
// hosts; kept current by the live `tree:*` events, without a reload.

import { api } from './api.js';
import { h, replaceChildren, throttle } from './dom.js';
import { messageOf } from './notices.js';
import { slotsBlock, treeHash } from './treeparts.js';

export class TreeListView {
  constructor() {
    this.title = 'Trees';
    this.crumbs = [{ label: 'Agents', href: '#/' }, { label: 'Trees' }];
    this.generation = 0;
    this.error = h('p', { class: 'load-error', role: 'alert', hidden: true });
    this.empty = h('div', { class: 'empty', hidden: true },
      h('p', null, 'No spawn trees yet. An agent becomes the root of one when it spawns a child ',
        '(', h('code', null, 'runtime.tree.spawn'), ', ', h('code', null, 'POST /api/agents/{agentId}/children'),
        ') or with ', h('code', null, 'POST /api/trees'), '.'));
    this.list = h('ul', { class: 'tree-list', 'aria-labelledby': 'trees-heading' });
    this.el = h('section', { class: 'trees' },
      h('h1', { id: 'trees-heading' }, 'Spawn trees'),
      h('p', { class: 'hint' }, 'Each tree is a root agent and the retained agents it spawned; its agents share the tree\'s turn slots.'),
      this.error, this.empty, this.list);
    this.refreshSoon = throttle(() => this.load(), 400);
  }

  async load() {
    const generation = ++this.generation;
    try {
      const data = await api('api/trees');
      if (generation !== this.generation) return;
      this.error.hidden = true;
      this.render(data.trees || []);
    } catch (error) {
      if (generation !== this.generation) return;
      this.error.textContent = `Could not load the trees: ${messageOf(error)}`;
      this.error.hidden = false;
    }
  }

  render(trees) {
    replaceChildren(this.list, trees.map((tree) => h('li', { class: 'tree-card', dataset: { tree: tree.treeId } },
      h('div', { class: 'tree-card-head' },
        h('h2', { class: 'tree-name' }, h('a', { href: treeHash(tree.treeId) }, tree.treeId)),
        h('span', { class: 'muted' }, 'root ', h('code', { class: 'tree-path' }, tree.rootPath || '/root'))),
      slotsBlock(tree),
      h('p', { class: 'tree-agents-count' },
        h('span', { class: 'count-number' }, String(tree.agents ?? 0)), tree.agents === 1 ? ' agent' : ' agents'))));
    this.empty.hidden = trees.length > 0;
  }

  onEvents(frames) {
    for (const frame of frames) {
      const name = frame.event || '';
      if (name.startsWith('tree:') || name === 'agent:created' || name === 'agent:removed') {
        this.refreshSoon();
        return;
      }
    }
  }

  destroy() {
    this.generation += 1;
    this.refreshSoon.cancel();
  }
}
