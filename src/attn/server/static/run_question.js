// A waiting task's question (supervisor contact, seed 003, FILE-06, FILE-10),
// answerable in place on the run page: need_confirmation → Approve / Reject
// (body "approved" / "rejected", data {approved: true | false});
// need_input → a text box; need_selection → one button per option (the body
// is the option). The answer goes to POST …/tasks/<task>/respond with the
// question's id; the task runs again. A run another session owns is answered
// only with the page's "force" box ticked (FILE-08). The question's text and
// options come from the worker: they are shown as text only.

import { ApiError, api } from './api.js';
import { clip, h, replaceChildren, timeOfDay, uid } from './dom.js';
import { messageOf } from './notices.js';
import { taskPath } from './run_parts.js';

const WANTS = {
  need_confirmation: 'needs a confirmation',
  need_input: 'needs an answer',
  need_selection: 'needs a choice',
};

export class QuestionCard {
  /**
   * runId, taskId: where the question is. question: {id, kind, text, options, askedAt}.
   * force(): whether the person ticked "force". onAnswered(taskId, text): respond succeeded.
   * onStale(): the task was not waiting any more (the page reloads the run).
   */
  constructor(runId, taskId, question, { force, onAnswered, onStale } = {}) {
    this.runId = runId;
    this.taskId = taskId;
    this.question = question || {};
    this.force = force || (() => false);
    this.onAnswered = onAnswered;
    this.onStale = onStale;
    this.busy = false;
    this.inputId = uid('answer');
    this.input = h('textarea', { id: this.inputId, class: 'question-input', rows: '2', maxlength: '65536' });
    this.note = h('p', { class: 'question-note', role: 'status', hidden: true });
    this.actions = h('div', { class: 'question-actions' });
    const headingId = uid('question');
    this.el = h('article', {
      class: 'question-card', 'aria-labelledby': headingId,
      dataset: { task: taskId, question: this.question.id || '', kind: this.question.kind || '' },
    },
    h('h4', { id: headingId, class: 'question-head' },
      h('span', { class: 'question-icon', 'aria-hidden': 'true' }, '❓'), ' ',
      `${clip(taskId, 80)} ${WANTS[this.question.kind] || 'asks'}`,
      this.question.askedAt ? h('time', { class: 'muted question-time', datetime: this.question.askedAt }, ` asked at ${timeOfDay(this.question.askedAt)}`) : null),
    h('blockquote', { class: 'question-text' }, clip(this.question.text || '(no text)', 4000)),
    this.actions, this.note);
    this.paint();
  }

  /** Whether this card shows `question` (a new question id needs a new card). */
  shows(question) {
    return Boolean(question) && question.id === this.question.id;
  }

  paint() {
    const q = this.question;
    const disabled = this.busy;
    if (q.kind === 'need_confirmation') {
      replaceChildren(this.actions,
        h('button', { type: 'button', class: 'primary', disabled, onclick: () => this.answer('approved', { approved: true }) }, 'Approve'),
        h('button', { type: 'button', class: 'danger', disabled, onclick: () => this.answer('rejected', { approved: false }) }, 'Reject'));
    } else if (q.kind === 'need_selection' && Array.isArray(q.options) && q.options.length) {
      replaceChildren(this.actions, h('div', { class: 'question-options', role: 'group', 'aria-label': 'Options' },
        q.options.map((option) => h('button', {
          type: 'button', class: 'question-option', disabled, dataset: { option: String(option) },
          onclick: () => this.answer(String(option)),
        }, clip(option, 200)))));
    } else {
      // need_input (and any kind this page does not know): a text answer.
      this.input.disabled = disabled;
      replaceChildren(this.actions,
        h('label', { for: this.inputId }, 'Your answer'), this.input,
        h('button', { type: 'button', class: 'primary question-send', disabled, onclick: () => this.sendText() }, 'Send answer'));
    }
  }

  sendText() {
    const text = this.input.value.trim();
    if (!text) {
      this.say('Write your answer first.', 'error');
      this.input.focus();
      return;
    }
    this.answer(text);
  }

  say(text, kind = 'info') {
    this.note.textContent = text;
    this.note.className = `question-note question-note-${kind}`;
    this.note.hidden = !text;
  }

  /** Respond with `body` (and `data`); FILE-06: a second answer to one question changes nothing. */
  async answer(body, data = undefined) {
    if (this.busy) return;
    this.busy = true;
    this.say('Sending your answer…');
    this.paint();
    const request = { body, questionId: this.question.id || undefined, data };
    if (this.force()) request.force = true;
    try {
      const outcome = await api(taskPath(this.runId, this.taskId, 'respond'), { method: 'POST', body: request });
      this.input.value = '';
      const said = outcome && outcome.duplicate ? 'It had been answered already' : `You answered “${clip(body, 120)}”`;
      this.say(`${said}; ${this.taskId} runs again.`);
      this.onAnswered?.(this.taskId, said);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'run_owned') {
        const owner = error.detail && error.detail.owner ? error.detail.owner : 'another session';
        this.say(`Refused: this run is owned by session ${clip(owner, 120)}. Tick “Force” above to answer anyway.`, 'error');
      } else if (error instanceof ApiError && error.code === 'task_not_waiting') {
        const status = (error.detail && error.detail.status) || 'not waiting';
        this.say(`${this.taskId} is not waiting any more (it is ${status}).`, 'error');
        this.onStale?.();
      } else {
        this.say(`Could not answer: ${messageOf(error)}`, 'error');
      }
    } finally {
      this.busy = false;
      this.paint();
    }
  }
}
