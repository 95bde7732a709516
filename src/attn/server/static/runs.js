// The list of runs of command-line workers (seed 003), route #/runs: each
// run's id, leader, owner, its tasks' statuses, the pending steers and
// follow-ups with the backpressure warning, and whether its worker is alive.
// Kept current by the live `filebox:*` events (one listing call per burst),
// without a reload.

import { api } from './api.js';
import { clip, h, replaceChildren, throttle } from './dom.js';
import { messageOf } from './notices.js';
import { ownerOf, pendingBlock, runHash, taskSummary, workerBadge } from './run_parts.js';

export class RunsView {
  constructor() {
    this.title = 'Runs';
    this.crumbs = [{ label: 'Agents', href: '#/' }, { label: 'Runs' }];
    this.generation = 0;
    this.error = h('p', { class: 'load-error', role: 'alert', hidden: true });
    this.empty = h('div', { class: 'empty', hidden: true },
      h('p', null, 'No runs yet. A run starts with ', h('code', null, 'attn worker run -- <command>'),
        ', ', h('code', null, 'POST /api/workers'), ' or ', h('code', null, 'POST /api/runs'), '.'));
    this.list = h('ul', { class: 'run-list', 'aria-labelledby': 'runs-heading' });
    this.el = h('section', { class: 'runs' },
      h('h1', { id: 'runs-heading' }, 'Runs'),
      h('p', { class: 'hint' }, 'Command-line workers and their file mailboxes. A task waiting for you has a question to answer on its run\'s page.'),
      this.error, this.empty, this.list);
    this.refreshSoon = throttle(() => this.load(), 400);
  }

  async load() {
    const generation = ++this.generation;
    try {
      const data = await api('api/runs');
      if (generation !== this.generation) return;
      this.error.hidden = true;
      this.render(Array.isArray(data.runs) ? data.runs : []);
    } catch (error) {
      if (generation !== this.generation) return;
      this.error.textContent = `Could not load the runs: ${messageOf(error)}`;
      this.error.hidden = false;
    }
  }

  render(runs) {
    replaceChildren(this.list, runs.map((run) => runCard(run)));
    this.empty.hidden = runs.length > 0;
  }

  onEvents(frames) {
    if (frames.some((frame) => String(frame.event || '').startsWith('filebox:'))) this.refreshSoon();
  }

  destroy() {
    this.generation += 1;
    this.refreshSoon.cancel();
  }
}

function runCard(run) {
  const owner = ownerOf(run);
  const waiting = Object.values(run.tasks || {}).filter((t) => t && t.status === 'waiting').length;
  return h('li', { class: `run-card${waiting ? ' run-card-waiting' : ''}`, dataset: { run: run.runId } },
    h('div', { class: 'run-card-head' },
      h('h2', { class: 'run-name' }, h('a', { href: runHash(run.runId) }, clip(run.runId, 120))),
      workerBadge(run),
      waiting ? h('span', { class: 'tag tag-waiting' }, waiting === 1 ? '1 question' : `${waiting} questions`) : null),
    h('dl', { class: 'facts run-facts' },
      h('dt', null, 'Leader'), h('dd', { class: 'run-leader' }, run.leader
        ? h('a', { href: `#/agents/${encodeURIComponent(run.leader)}` }, clip(run.leader, 80))
        : h('span', { class: 'muted' }, 'none')),
      h('dt', null, 'Owner'), h('dd', { class: 'run-owner' }, owner
        ? h('code', null, clip(owner, 120)) : h('span', { class: 'muted' }, 'none')),
      h('dt', null, 'Tasks'), h('dd', { class: 'run-task-summary' }, taskSummary(run))),
    pendingBlock(run.pending));
}
