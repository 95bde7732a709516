// The leader's verbs on the run page (seed 003, FILE-07, FILE-08): steer (to
// the steering file at once when the task's worker can take it, else into
// the bounded pending queue), follow-up (non-blocking, to the inbox or the
// queue), nudge (a status request; the seed's text when none is given) and
// cancel (after a confirmation; a finished task stays as it is).
// A run another session owns takes them only with the page's "force" box
// ticked; a refusal says who owns it and changes nothing.

import { ApiError, api } from './api.js';
import { clip, h, replaceChildren, uid } from './dom.js';
import { messageOf } from './notices.js';
import { taskPath } from './run_parts.js';

const VERBS = {
  steer: { path: 'steer', label: 'Steer', done: 'Steer' },
  follow_up: { path: 'follow-up', label: 'Follow-up', done: 'Follow-up' },
  nudge: { path: 'nudge', label: 'Nudge', done: 'Nudge' },
  cancel: { path: 'cancel', label: 'Cancel task', done: 'Cancel' },
};

export class SteerForm {
  /**
   * runId: the run. force(): whether the person ticked "force".
   * onSent(): a verb succeeded (the page reloads the run's counts).
   */
  constructor(runId, { force, onSent } = {}) {
    this.runId = runId;
    this.force = force || (() => false);
    this.onSent = onSent;
    this.busy = false;
    const ids = { task: uid('steer-task'), body: uid('steer-body'), priority: uid('steer-priority'), tasks: uid('steer-tasks') };
    this.taskList = h('datalist', { id: ids.tasks });
    this.task = h('input', { id: ids.task, type: 'text', list: ids.tasks, required: true, maxlength: '128', autocomplete: 'off', class: 'steer-task' });
    this.body = h('textarea', { id: ids.body, rows: '3', maxlength: '65536', class: 'steer-body' });
    this.priority = h('select', { id: ids.priority, class: 'steer-priority' },
      ['normal', 'high', 'low'].map((p) => h('option', { value: p }, p)));
    this.buttons = Object.entries(VERBS).map(([verb, { label }]) => h('button', {
      type: 'button', class: verb === 'steer' ? 'primary' : (verb === 'cancel' ? 'danger' : ''), dataset: { verb }, onclick: () => this.send(verb),
    }, label));
    this.note = h('p', { class: 'steer-note', role: 'status', hidden: true });
    this.el = h('section', { class: 'run-steer panel', 'aria-labelledby': 'run-steer-heading' },
      h('h2', { id: 'run-steer-heading' }, 'Steer, follow up, nudge, cancel'),
      h('p', { class: 'hint' }, 'A steer or a follow-up reaches a running worker at once; otherwise it waits in the pending queue until the worker can take it. A nudge asks for a status report (the message is optional). Cancel stops a task for good and drops what waits for it (the message is the reason).'),
      h('form', { class: 'steer-form', onsubmit: (event) => { event.preventDefault(); this.send('steer'); } },
        h('div', { class: 'steer-fields' },
          h('span', { class: 'steer-field' }, h('label', { for: ids.task }, 'Task'), this.task, this.taskList),
          h('span', { class: 'steer-field' }, h('label', { for: ids.priority }, 'Priority'), this.priority)),
        h('label', { for: ids.body }, 'Message'), this.body,
        h('div', { class: 'steer-buttons' }, this.buttons)),
      this.note);
  }

  /** Offer the run's task ids; the first one is the default target. */
  setTasks(taskIds) {
    const key = taskIds.join('\n');
    if (this.tasksKey === key) return;
    this.tasksKey = key;
    replaceChildren(this.taskList, taskIds.map((id) => h('option', { value: id })));
    if (!this.task.value && taskIds.length) this.task.value = taskIds[0];
  }

  say(text, kind = 'info') {
    this.note.textContent = text;
    this.note.className = `steer-note steer-note-${kind}`;
    this.note.hidden = !text;
  }

  async send(verb) {
    if (this.busy) return;
    const taskId = this.task.value.trim();
    const text = this.body.value.trim();
    if (!taskId) {
      this.say('Name the task first.', 'error');
      this.task.focus();
      return;
    }
    if (verb === 'cancel' && !window.confirm(`Cancel task ${clip(taskId, 80)} for good? What waits for it is dropped.`)) return;
    if (!text && verb !== 'nudge' && verb !== 'cancel') {
      this.say(`Write the ${VERBS[verb].label.toLowerCase()} first.`, 'error');
      this.body.focus();
      return;
    }
    const request = {};
    if (text) request[verb === 'cancel' ? 'reason' : 'body'] = text;
    if (verb === 'steer' || verb === 'follow_up') request.priority = this.priority.value;
    if (this.force()) request.force = true;
    this.busy = true;
    this.buttons.forEach((b) => { b.disabled = true; });
    this.say(`Sending the ${VERBS[verb].label.toLowerCase()}…`);
    try {
      const outcome = await api(taskPath(this.runId, taskId, VERBS[verb].path), { method: 'POST', body: request });
      this.body.value = '';
      this.say(outcomeText(verb, taskId, outcome || {}), outcome && outcome.dropped && outcome.dropped.length ? 'warn' : 'info');
      this.onSent?.();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'run_owned') {
        const owner = error.detail && error.detail.owner ? error.detail.owner : 'another session';
        this.say(`Refused: this run is owned by session ${clip(owner, 120)}. Tick “Force” above to act anyway. Nothing was sent.`, 'error');
      } else {
        this.say(`Could not send: ${messageOf(error)}`, 'error');
      }
    } finally {
      this.busy = false;
      this.buttons.forEach((b) => { b.disabled = false; });
    }
  }
}

/** What a verb's outcome ({message, queued, duplicate, dropped}) means, in one sentence. */
export function outcomeText(verb, taskId, outcome) {
  const what = VERBS[verb].done;
  const task = clip(taskId, 80);
  let text;
  if (verb === 'cancel') return `Task ${task} is ${clip(String(outcome.status || 'cancelled'), 40)}.`;
  if (outcome.queued) text = `${what} queued: ${task} cannot take it now; it is delivered when its worker can.`;
  else if (verb === 'nudge') text = `Nudge sent to ${task}.`;
  else if (verb === 'steer') text = `${what} delivered to ${task}'s steering file.`;
  else text = `${what} delivered to ${task}'s inbox.`;
  const dropped = Array.isArray(outcome.dropped) ? outcome.dropped.length : 0;
  if (dropped) text += ` The queue was full: the oldest ${dropped === 1 ? 'one was' : `${dropped} were`} dropped.`;
  return text;
}
