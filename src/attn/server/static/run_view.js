// The page of one run of command-line workers (seed 003), route #/runs/<id>:
// who leads and owns it and whether its worker is alive; its tasks with
// their statuses, a waiting task's question answerable in place
// (run_question.js); the pending steers and follow-ups with the
// backpressure warning (FILE-07); steer / follow-up / nudge (run_forms.js);
// the inbox, outbox and steering messages with Ack (run_messages.js); the
// worker's output and the run's events (run_log.js). Live: the
// `filebox:message`, `filebox:status` and `filebox:event` events of this run
// update it in place; the output is re-read after each event and, while the
// worker is alive, every few seconds (output lines have no event).
// A run another session owns shows its owner; the verbs send `force: true`
// only while the "force" box is ticked (FILE-08).

import { ApiError, api } from './api.js';
import { clip, h, replaceChildren, throttle, timeOfDay } from './dom.js';
import { messageOf } from './notices.js';
import { EventsPanel, OutputPanel } from './run_log.js';
import { MessagePanel } from './run_messages.js';
import { SteerForm } from './run_forms.js';
import {
  PendingView, ownerOf, runPath, syncChildren, taskChip, tasksOf, workerBadge,
} from './run_parts.js';
import { QuestionCard } from './run_question.js';

/** How often the output is re-read while the worker is alive (ms). */
const OUTPUT_POLL_MS = 2000;

export class RunView {
  constructor(runId) {
    this.runId = runId;
    this.title = `Run ${clip(runId, 60)}`;
    this.crumbs = [{ label: 'Agents', href: '#/' }, { label: 'Runs', href: '#/runs' }, { label: clip(runId, 60) }];
    this.generation = 0;
    this.run = null;
    this.cards = new Map(); // task id → QuestionCard
    this.rows = new Map(); // task id → its row's elements
    this.answered = new Map(); // task id → what this page answered it last
    this.error = h('p', { class: 'load-error run-error', role: 'alert', hidden: true });
    this.facts = h('dl', { class: 'facts run-facts' });
    this.worker = h('span', { class: 'run-worker' });
    this.forceBox = h('input', { type: 'checkbox', id: 'run-force', class: 'run-force-box' });
    this.forceText = h('span', null);
    this.forceRow = h('p', { class: 'run-force', hidden: true },
      this.forceBox, ' ', h('label', { for: 'run-force' }, h('strong', null, 'Force'), this.forceText));
    this.pending = new PendingView();
    this.taskList = h('ul', { class: 'run-task-list', 'aria-labelledby': 'run-tasks-heading' });
    this.taskEmpty = h('p', { class: 'muted', hidden: true }, 'No tasks yet: a worker\'s task appears when it starts.');
    const force = () => this.force();
    this.form = new SteerForm(runId, { force, onSent: () => this.refreshSoon() });
    this.messages = new MessagePanel(runId);
    this.output = new OutputPanel(runId);
    this.events = new EventsPanel(runId);
    this.body = h('div', { class: 'run-body', hidden: true },
      h('section', { class: 'run-head panel', 'aria-labelledby': 'run-heading' },
        h('div', { class: 'run-title' }, h('h1', { id: 'run-heading' }, 'Run ', h('code', null, clip(runId, 120))), this.worker),
        this.facts, this.forceRow),
      h('div', { class: 'run-columns' },
        h('div', { class: 'run-column' },
          h('section', { class: 'run-tasks panel', 'aria-labelledby': 'run-tasks-heading' },
            h('h2', { id: 'run-tasks-heading' }, 'Tasks'), this.taskEmpty, this.taskList),
          h('section', { class: 'run-queue panel', 'aria-labelledby': 'run-queue-heading' },
            h('h2', { id: 'run-queue-heading' }, 'Pending steers and follow-ups'), this.pending.el),
          this.form.el),
        h('div', { class: 'run-column' }, this.messages.el)),
      h('div', { class: 'run-columns' }, this.output.el, this.events.el));
    this.el = h('section', { class: 'run' }, this.error, this.body);
    this.refreshSoon = throttle(() => this.loadRun(), 300);
    this.outputSoon = throttle(() => this.output.load(), 500);
    this.poller = setInterval(() => {
      if (this.run && this.run.workerAlive && !document.hidden) this.output.load();
    }, OUTPUT_POLL_MS);
  }

  /** Whether the verbs send force: the run is owned and the person ticked the box. */
  force() {
    return Boolean(ownerOf(this.run)) && this.forceBox.checked;
  }

  async load() {
    // The panels are read once the run is known to exist (a bad address asks once).
    if (await this.loadRun()) await Promise.all([this.messages.load(), this.events.load(), this.output.load()]);
  }

  /** Read the run's view; whether it was read. */
  async loadRun() {
    const generation = ++this.generation;
    try {
      const run = await api(runPath(this.runId));
      if (generation !== this.generation) return false;
      this.error.hidden = true;
      this.body.hidden = false;
      this.show(run);
      return true;
    } catch (error) {
      if (generation !== this.generation) return false;
      if (error instanceof ApiError && error.status === 404) {
        replaceChildren(this.error, `There is no run with id "${clip(this.runId, 80)}". `, h('a', { href: '#/runs' }, 'See all runs'));
        this.body.hidden = true;
      } else if (error instanceof ApiError && error.status === 422) {
        replaceChildren(this.error, `"${clip(this.runId, 80)}" is not a run id: ${messageOf(error)} `, h('a', { href: '#/runs' }, 'See all runs'));
        this.body.hidden = true;
      } else {
        this.error.textContent = `Could not load the run: ${messageOf(error)}`;
      }
      this.error.hidden = false;
      return false;
    }
  }

  show(run) {
    this.run = run;
    const owner = ownerOf(run);
    replaceChildren(this.worker, workerBadge(run));
    replaceChildren(this.facts,
      h('dt', null, 'Leader'), h('dd', { class: 'run-leader' }, run.leader
        ? h('a', { href: `#/agents/${encodeURIComponent(run.leader)}` }, clip(run.leader, 80))
        : h('span', { class: 'muted' }, 'none: its questions go to people')),
      h('dt', null, 'Owner'), h('dd', { class: 'run-owner' }, owner
        ? [h('code', null, clip(owner, 120)), ' (only this session changes the run, unless forced)']
        : h('span', { class: 'muted' }, 'none: anyone may act on it')),
      h('dt', null, 'Created'), h('dd', null, run.createdAt
        ? h('time', { datetime: run.createdAt, title: run.createdAt }, timeOfDay(run.createdAt)) : 'unknown'),
      run.worker && Array.isArray(run.worker.command) && run.worker.command.length
        ? [h('dt', null, 'Command'), h('dd', null, h('code', { class: 'run-command' }, clip(run.worker.command.join(' '), 500)))] : null);
    this.forceRow.hidden = !owner;
    if (!owner) this.forceBox.checked = false;
    this.forceText.textContent = owner
      ? `: act on this run although session ${clip(owner, 120)} owns it (sends force: true)` : '';
    this.pending.update(run.pending);
    this.renderTasks();
    this.form.setTasks(tasksOf(run).map(([id]) => id));
  }

  renderTasks() {
    const tasks = tasksOf(this.run);
    const keep = new Set();
    const rows = tasks.map(([id, task]) => {
      const waiting = task.status === 'waiting' && task.question && typeof task.question === 'object';
      let card = null;
      if (waiting) {
        card = this.cards.get(id);
        if (!card || !card.shows(task.question)) {
          card = new QuestionCard(this.runId, id, task.question, {
            force: () => this.force(),
            onAnswered: (taskId, said) => this.answeredHere(taskId, said),
            onStale: () => this.refreshSoon(),
          });
          this.cards.set(id, card);
        }
        this.answered.delete(id);
      }
      keep.add(id);
      const said = !waiting && task.status === 'running' ? this.answered.get(id) : null;
      return this.taskRow(id, task, card, said);
    });
    for (const id of [...this.cards.keys()]) if ((this.run.tasks || {})[id]?.status !== 'waiting') this.cards.delete(id);
    for (const id of [...this.rows.keys()]) if (!keep.has(id)) this.rows.delete(id);
    syncChildren(this.taskList, rows);
    this.taskEmpty.hidden = tasks.length > 0;
  }

  /** One task's row, made once and updated in place (an answer being typed keeps focus). */
  taskRow(id, task, card, said) {
    let row = this.rows.get(id);
    if (!row) {
      row = { head: h('div', { class: 'run-task-head' }), said: h('p', { class: 'run-task-answered' }), card: h('div', { class: 'run-task-question' }) };
      row.el = h('li', { class: 'run-task' }, row.head, row.said, row.card);
      this.rows.set(id, row);
    }
    row.el.className = `run-task task-row-${task.status}`;
    row.el.dataset.task = id;
    row.el.dataset.status = task.status;
    replaceChildren(row.head,
      h('code', { class: 'run-task-id' }, clip(id, 120)), taskChip(task.status),
      task.updatedAt ? h('span', { class: 'muted run-task-time' }, `since ${timeOfDay(task.waitingSince || task.updatedAt)}`) : null);
    row.said.textContent = said ? `${said}; it runs again.` : '';
    row.said.hidden = !said;
    if (card) {
      if (row.card.firstChild !== card.el) replaceChildren(row.card, card.el);
    } else if (row.card.firstChild) replaceChildren(row.card);
    row.card.hidden = !card;
    return row.el;
  }

  /** respond succeeded: the server moved the task back to running (FILE-06). */
  answeredHere(taskId, said) {
    this.answered.set(taskId, said);
    this.generation += 1; // a read in flight began before the answer: it would show the question again
    const task = this.run && this.run.tasks && this.run.tasks[taskId];
    if (task && task.status === 'waiting') {
      this.run = { ...this.run, tasks: { ...this.run.tasks, [taskId]: { ...task, status: 'running', question: undefined } } };
      this.renderTasks();
    }
    this.refreshSoon();
  }

  onEvents(frames) {
    let messages = false;
    let changed = false;
    for (const frame of frames) {
      const data = frame.data || {};
      if (!String(frame.event || '').startsWith('filebox:') || data.runId !== this.runId) continue;
      if (frame.event === 'filebox:message') messages = this.messages.apply(data.message) || messages;
      else if (frame.event === 'filebox:status') {
        for (const m of Array.isArray(data.messages) ? data.messages : []) messages = this.messages.apply(m) || messages;
      } else if (frame.event === 'filebox:event') this.events.add(data.event);
      changed = true;
    }
    if (messages) this.messages.render();
    if (changed) {
      // Task statuses, pending counts and the worker live in the run's view.
      this.refreshSoon();
      this.outputSoon();
    }
  }

  destroy() {
    this.generation += 1;
    clearInterval(this.poller);
    this.refreshSoon.cancel();
    this.outputSoon.cancel();
    this.messages.destroy();
    this.output.destroy();
    this.events.destroy();
  }
}
