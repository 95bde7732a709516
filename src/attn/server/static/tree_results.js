// The RESULTs an agent of a spawn tree received (seed 002, A2A-14, A2A-15):
// one per settled child turn, newest first, each with its child, outcome
// (completed, errored, interrupted), whether it was read, and a preview of
// its text. Opening one shows the child's turn read-only, from
// GET /api/agents/{child}/turns/{itemId}: the mail it read, its activity,
// its session and its activity log.

import { agentPath, api, query } from './api.js';
import { clip, h, replaceChildren, timeOfDay, uid } from './dom.js';
import { messageOf } from './notices.js';
import { OUTCOME_LABELS, resultText } from './treeparts.js';

const PAGE = 50;
const MAX_JSON_CHARS = 20_000;

function extraOf(item) {
  const extra = item && item.payload && item.payload.extra;
  return extra && typeof extra === 'object' ? extra : {};
}

/** A RESULT's outcome as a chip with its name. */
export function outcomeChip(outcome) {
  const value = OUTCOME_LABELS[outcome] ? outcome : 'unknown';
  return h('span', { class: `result-outcome result-${value}`, dataset: { outcome: value } },
    OUTCOME_LABELS[outcome] || outcome || 'unknown');
}

/** The REST path of the turn a RESULT reports (relative to the page). */
export function turnPath(entry) {
  const extra = extraOf(entry.item);
  if (entry.from && typeof extra.turnItemId === 'string') {
    return agentPath(entry.from, `/turns/${encodeURIComponent(extra.turnItemId)}`);
  }
  const pointer = typeof extra.transcript === 'string' ? extra.transcript : '';
  return pointer.startsWith('/api/') ? pointer.slice(1) : null;
}

export class ResultList {
  /** agentId: whose RESULTs; transcript: a TranscriptDialog to open them in. */
  constructor(agentId, transcript) {
    this.agentId = agentId;
    this.transcript = transcript;
    this.generation = 0;
    this.nextBefore = null;
    this.entries = [];
    this.error = h('p', { class: 'load-error', role: 'alert', hidden: true });
    this.empty = h('p', { class: 'muted', hidden: true }, 'No RESULT received yet: each settled turn of a child sends one here.');
    this.list = h('ol', { class: 'result-list', 'aria-label': `RESULTs received by ${agentId}, newest first` });
    this.more = h('button', { type: 'button', class: 'load-older', hidden: true, onclick: () => this.load(false) },
      'Load older results');
    const headingId = uid('results-heading');
    this.el = h('section', { class: 'tree-results', 'aria-labelledby': headingId },
      h('h3', { id: headingId }, 'Results received'), this.error, this.empty, this.list, this.more);
  }

  /** The newest page (reset) or the page before the oldest shown. */
  async load(reset = true) {
    const generation = ++this.generation;
    try {
      const before = reset ? null : this.nextBefore;
      const data = await api(agentPath(this.agentId, `/results${query({ limit: PAGE, before })}`));
      if (generation !== this.generation) return;
      this.entries = reset ? (data.results || []) : [...this.entries, ...(data.results || [])];
      this.nextBefore = data.nextBefore ?? null;
      this.error.hidden = true;
      this.render();
    } catch (error) {
      if (generation !== this.generation) return;
      this.error.textContent = `Could not load the results: ${messageOf(error)}`;
      this.error.hidden = false;
    }
  }

  render() {
    replaceChildren(this.list, this.entries.map((entry) => this.row(entry)));
    this.empty.hidden = this.entries.length > 0;
    this.more.hidden = this.nextBefore === null;
  }

  row(entry) {
    const item = entry.item || {};
    const extra = extraOf(item);
    const from = extra.from || entry.from || 'a child';
    const text = resultText(item);
    return h('li', { class: 'result-entry', dataset: { id: item.id || '', from: entry.from || '', outcome: entry.outcome || '' } },
      h('button', { type: 'button', class: 'result-open', onclick: () => this.transcript.open(entry) },
      h('span', { class: 'result-head' },
        h('span', { class: 'sr-only' }, 'Open the turn of '),
        h('code', { class: 'tree-path result-from' }, from),
        outcomeChip(entry.outcome),
        h('span', { class: `result-read ${entry.consumed ? 'read' : 'unread-result'}` }, entry.consumed ? 'read' : 'unread'),
        extra.truncated ? h('span', { class: 'tag' }, `preview of ${extra.fullChars} characters`) : null,
        h('time', { datetime: item.queuedAt || '' }, timeOfDay(item.queuedAt))),
      extra.reason ? h('span', { class: 'result-reason' }, clip(extra.reason, 200)) : null,
      h('span', { class: 'result-preview' }, text ? clip(text, 240) : h('span', { class: 'muted' }, '(no text)'))));
  }

  destroy() {
    this.generation += 1;
  }
}

/** The read-only transcript of one child turn, in a modal dialog. */
export class TranscriptDialog {
  constructor() {
    this.generation = 0;
    this.headingId = uid('transcript-heading');
    this.heading = h('h2', { id: this.headingId }, 'Turn');
    this.body = h('div', { class: 'transcript-body' });
    this.closeButton = h('button', { type: 'submit', value: 'close' }, 'Close');
    this.el = h('dialog', { class: 'transcript-dialog', 'aria-labelledby': this.headingId },
      h('form', { method: 'dialog' },
        this.heading, this.body,
        h('div', { class: 'dialog-actions' }, this.closeButton)));
  }

  async open(entry) {
    const generation = ++this.generation;
    const item = entry.item || {};
    const extra = extraOf(item);
    const from = extra.from || entry.from || 'a child';
    this.heading.textContent = `Turn of ${from}`;
    const result = h('section', { class: 'transcript-result' },
      h('h3', null, 'RESULT ', outcomeChip(entry.outcome)),
      extra.reason ? h('p', { class: 'result-reason' }, extra.reason) : null,
      h('pre', { class: 'transcript-text' }, resultText(item) || '(no text)'),
      extra.truncated ? h('p', { class: 'hint' }, `The RESULT shows the head and tail of ${extra.fullChars} characters.`) : null);
    const turn = h('div', { class: 'transcript-turn', role: 'status' }, 'Loading the turn…');
    replaceChildren(this.body, result, turn);
    if (!this.el.open) this.el.showModal();
    this.closeButton.focus();
    const path = turnPath(entry);
    if (!path) {
      replaceChildren(turn, h('p', { class: 'load-error', role: 'alert' }, 'This RESULT names no stored turn.'));
      return;
    }
    try {
      const data = await api(path);
      if (generation !== this.generation) return;
      turn.removeAttribute('role');
      replaceChildren(turn, turnParts(data, entry.from));
    } catch (error) {
      if (generation !== this.generation) return;
      replaceChildren(turn, h('p', { class: 'load-error', role: 'alert' }, `Could not load the turn: ${messageOf(error)}`));
    }
  }

  destroy() {
    this.generation += 1;
    if (this.el.open) this.el.close();
  }
}

function json(value) {
  let text;
  try {
    text = JSON.stringify(value, null, 2);
  } catch {
    text = String(value);
  }
  return clip(text, MAX_JSON_CHARS);
}

function turnParts(data, agentId) {
  const item = data.item || {};
  const activity = data.activity;
  const logs = data.logs || [];
  const facts = [
    ['Agent', agentId || item.agentId],
    ['Item', h('code', null, item.id || '')],
    ['Status', item.status],
    ['Started', timeOfDay(item.startedAt)],
    ['Ended', timeOfDay(item.completedAt || (activity && activity.endedAt))],
  ];
  if (activity) facts.push(['Tokens, tools', `${activity.totalTokens ?? 0}, ${activity.totalTools ?? 0}`]);
  return [
    h('h3', null, 'Mail it read'),
    h('pre', { class: 'transcript-text' }, clip((item.payload && item.payload.content) || item.summary || '', 20_000)),
    h('dl', { class: 'facts' }, facts.filter(([, v]) => v).map(([k, v]) => [h('dt', null, k), h('dd', null, v)])),
    item.session ? h('details', { class: 'transcript-session' },
      h('summary', null, 'Session (its conversation)'), h('pre', { class: 'transcript-text' }, json(item.session))) : null,
    h('h3', null, 'Activity log'),
    logs.length
      ? h('ol', { class: 'activity-logs' }, logs.map((log) => h('li', null,
        h('span', { class: 'log-type' }, `${log.type} `), h('span', { class: 'log-content' }, clip(log.content, 2000)))))
      : h('p', { class: 'muted' }, 'No log entries.'),
    data.nextCursor ? h('p', { class: 'hint' }, 'More entries are in the agent\'s Mind view.') : null,
  ];
}
