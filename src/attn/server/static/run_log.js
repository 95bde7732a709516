// Two panels of the run page (seed 003): the tail of the worker's output
// (GET …/output?lines=N, N 1..2000) and the run's events (events.jsonl:
// run.created, worker.started, supervisor.contact, task.responded,
// steer.queued, …), newest first, kept current by the live `filebox:event`
// events. Output lines and event texts come from the worker: text only.

import { api, query } from './api.js';
import { clip, h, replaceChildren, timeOfDay } from './dom.js';
import { messageOf } from './notices.js';
import { runPath } from './run_parts.js';

/** Output lines read and shown. */
export const OUTPUT_LINES = 200;
/** Events kept on the page (the newest), and read per page of the listing. */
const EVENTS_SHOWN = 200;
const EVENTS_PAGE = 200;
/** Most pages read to reach the newest events of a long log. */
const EVENTS_MAX_PAGES = 50;

export class OutputPanel {
  constructor(runId) {
    this.runId = runId;
    this.generation = 0;
    this.text = h('pre', { class: 'run-output', tabindex: '0', 'aria-label': 'Worker output', hidden: true });
    this.meta = h('p', { class: 'hint run-output-meta' });
    this.error = h('p', { class: 'load-error', role: 'alert', hidden: true });
    this.el = h('section', { class: 'run-output-panel panel', 'aria-labelledby': 'run-output-heading' },
      h('div', { class: 'panel-head' },
        h('h2', { id: 'run-output-heading' }, 'Worker output'),
        h('button', { type: 'button', class: 'run-output-refresh', onclick: () => this.load() }, 'Refresh')),
      this.meta, this.error, this.text);
  }

  async load() {
    const generation = ++this.generation;
    try {
      const data = await api(runPath(this.runId, `/output${query({ lines: OUTPUT_LINES })}`));
      if (generation !== this.generation) return;
      const lines = Array.isArray(data.lines) ? data.lines.map((line) => String(line)) : [];
      const text = lines.join('\n');
      this.text.hidden = !lines.length;
      if (this.text.textContent !== text) {
        // Follow the end unless the person scrolled up to read.
        const atEnd = this.text.scrollTop + this.text.clientHeight >= this.text.scrollHeight - 4;
        this.text.textContent = text;
        if (atEnd) this.text.scrollTop = this.text.scrollHeight;
      }
      this.text.dataset.lines = String(lines.length);
      this.meta.textContent = !lines.length ? 'No output yet.'
        : data.truncated ? `The last ${lines.length} lines.` : `${lines.length} ${lines.length === 1 ? 'line' : 'lines'}.`;
      this.error.hidden = true;
    } catch (error) {
      if (generation !== this.generation) return;
      this.error.textContent = `Could not load the output: ${messageOf(error)}`;
      this.error.hidden = false;
    }
  }

  destroy() {
    this.generation += 1;
  }
}

export class EventsPanel {
  constructor(runId) {
    this.runId = runId;
    this.generation = 0;
    this.events = []; // oldest first
    this.ids = new Set();
    this.heard = null;
    this.more = false;
    this.list = h('ol', { class: 'run-events', 'aria-labelledby': 'run-events-heading' });
    this.empty = h('p', { class: 'muted', hidden: true }, 'No events yet.');
    this.note = h('p', { class: 'hint', hidden: true });
    this.error = h('p', { class: 'load-error', role: 'alert', hidden: true });
    this.el = h('section', { class: 'run-events-panel panel', 'aria-labelledby': 'run-events-heading' },
      h('h2', { id: 'run-events-heading' }, 'Events'), this.error, this.empty, this.list, this.note);
  }

  /** Read the log in pages and keep its newest events. */
  async load() {
    const generation = ++this.generation;
    this.heard = [];
    try {
      let all = [];
      let after = 0;
      let pages = 0;
      for (;;) {
        const data = await api(runPath(this.runId, `/events${query({ after: after || null, limit: EVENTS_PAGE })}`));
        if (generation !== this.generation) return;
        const page = Array.isArray(data.events) ? data.events : [];
        all = [...all, ...page].slice(-EVENTS_SHOWN);
        after += page.length;
        pages += 1;
        if (page.length < EVENTS_PAGE || pages >= EVENTS_MAX_PAGES) {
          this.more = page.length >= EVENTS_PAGE;
          break;
        }
      }
      const ids = new Set(all.map((e) => e.id));
      this.events = [...all, ...this.heard.filter((e) => !ids.has(e.id))].slice(-EVENTS_SHOWN);
      this.ids = new Set(this.events.map((e) => e.id));
      this.heard = null;
      this.error.hidden = true;
      this.render();
    } catch (error) {
      if (generation !== this.generation) return;
      this.heard = null;
      this.error.textContent = `Could not load the events: ${messageOf(error)}`;
      this.error.hidden = false;
    }
  }

  /** A live `filebox:event`'s event. */
  add(event) {
    if (!event || typeof event !== 'object' || event.runId !== this.runId) return;
    if (this.heard) this.heard.push(event);
    if (event.id && this.ids.has(event.id)) return;
    if (event.id) this.ids.add(event.id);
    this.events = [...this.events, event].slice(-EVENTS_SHOWN);
    this.render();
  }

  render() {
    const shown = [...this.events].reverse();
    replaceChildren(this.list, shown.map((e) => h('li', { class: 'run-event', dataset: { type: String(e.type || ''), id: String(e.id || '') } },
      h('time', { class: 'msg-time', datetime: e.at || '', title: e.at || '' }, timeOfDay(e.at)),
      h('code', { class: 'run-event-type' }, clip(e.type, 60)),
      e.taskId ? h('span', { class: 'run-event-task' }, clip(e.taskId, 60)) : null,
      e.message ? h('span', { class: 'run-event-text' }, clip(e.message, 300)) : null)));
    this.empty.hidden = shown.length > 0;
    this.note.hidden = !this.more && this.events.length < EVENTS_SHOWN;
    this.note.textContent = `The newest ${this.events.length} events.`;
  }

  destroy() {
    this.generation += 1;
  }
}
