// One approval as a card (000 §13.2, PPL-03..08, UI-06): what the agent
// asks (title, description, the agent, who is asked), its options as
// buttons, a free-text box when it takes one, the expiry as a countdown,
// answered in place. A closed approval says who answered what and when. The
// first answer wins: a second one (from here, another tab, the CLI) is
// answered 409 `approval_closed`, and the card says "already answered by …"
// and shows the approval as the server has it.

import { ApiError, api } from './api.js';
import { clip, formatDuration, h, replaceChildren, timeOfDay, uid } from './dom.js';
import { messageOf, notify } from './notices.js';
import { approvalIdsOf, currentUser, personName } from './people.js';

const STATE_LABELS = {
  pending: 'Pending', approved: 'Approved', rejected: 'Rejected', answered: 'Answered in words', expired: 'Expired', cancelled: 'Cancelled',
};

/** The UI address of one approval. */
export function approvalHash(id) {
  return `#/approvals/${encodeURIComponent(id)}`;
}

/** A state chip of an approval: its name in words and a colour. */
export function approvalStateChip(state) {
  return h('span', { class: `approval-state state-${state}`, dataset: { state } }, STATE_LABELS[state] || state);
}

export class ApprovalCard {
  /**
   * approval: the approval's JSON. linkTitle: the title links to its own page.
   * onChange(approval): called when the card learnt a new state.
   */
  constructor(approval, { linkTitle = true, onChange } = {}) {
    this.approval = approval;
    this.linkTitle = linkTitle;
    this.onChange = onChange;
    this.busy = false;
    this.note = null; // {text, kind}: what the last answer did
    this.commentId = uid('approval-comment');
    this.comment = h('textarea', { id: this.commentId, class: 'approval-comment', rows: '2', maxlength: '10000' });
    this.expiry = h('span', { class: 'approval-expiry' });
    this.body = h('div', { class: 'approval-body' });
    this.el = h('article', { class: 'approval-card panel', dataset: { id: approval.id } }, this.body);
    this.ticker = null;
    this.paint();
  }

  get id() {
    return this.approval.id;
  }

  /** Show a newer copy of the approval (a live event or a reload). */
  update(approval) {
    if (!approval || approval.id !== this.approval.id) return;
    // A closed approval stays closed: an older copy (a page read before the answer) changes nothing.
    if (this.approval.state !== 'pending' && approval.state === 'pending') return;
    const same = JSON.stringify(approval) === JSON.stringify(this.approval);
    this.approval = approval;
    // Repainting replaces the comment box: only when something changed (typing keeps focus).
    if (!same && !this.busy) this.paint();
  }

  paint() {
    const a = this.approval;
    const pending = a.state === 'pending';
    this.el.dataset.state = a.state;
    this.el.className = `approval-card panel approval-card-${a.state}`;
    const headingId = `${this.commentId}-title`;
    this.el.setAttribute('aria-labelledby', headingId);
    const title = this.linkTitle ? h('a', { href: approvalHash(a.id) }, clip(a.title, 200)) : clip(a.title, 200);
    const options = Array.isArray(a.options) ? a.options : [];
    replaceChildren(this.body,
      h('div', { class: 'approval-head' },
        h('h3', { id: headingId, class: 'approval-title' }, title),
        approvalStateChip(a.state),
        h('span', { class: 'priority' }, `${a.priority || 'high'} priority`)),
      h('dl', { class: 'facts approval-facts' },
        fact('Agent', h('a', { href: `#/agents/${encodeURIComponent(a.agentId)}` }, a.agentId)),
        fact('Asked', [personName(a.userId), ' at ', h('time', { datetime: a.createdAt || '' }, timeOfDay(a.createdAt))]),
        a.relatedTaskId ? fact('Task', h('a', { href: `#/work?task=${encodeURIComponent(a.relatedTaskId)}` },
          h('code', null, a.relatedTaskId))) : null,
        pending ? fact('Expires', this.expiry) : null,
        a.mailboxItemId ? fact('Item', h('code', null, a.mailboxItemId)) : null),
      a.description ? h('p', { class: 'approval-description' }, clip(a.description, 4000)) : null,
      pending ? this.answerForm(options) : this.outcome(options),
      this.note ? h('p', { class: `approval-note approval-note-${this.note.kind}`, role: this.note.kind === 'error' ? 'alert' : 'status' },
        this.note.text) : null);
    this.tick();
    clearInterval(this.ticker);
    this.ticker = pending && a.expiresAt ? setInterval(() => this.tick(), 1000) : null;
  }

  answerForm(options) {
    const a = this.approval;
    const free = Boolean(a.allowFreeform);
    const buttons = options.map((option) => {
      const describedBy = option.description ? uid('option-help') : null;
      return h('span', { class: 'approval-option' },
        h('button', {
          type: 'button',
          class: option.id === 'reject' ? 'danger' : (option.id === 'approve' || options.length === 1 ? 'primary' : ''),
          dataset: { option: option.id },
          disabled: this.busy,
          'aria-describedby': describedBy,
          onclick: () => this.answer(option.id),
        }, option.label || option.id),
        describedBy ? h('span', { id: describedBy, class: 'option-help muted' }, clip(option.description, 200)) : null);
    });
    return h('div', { class: 'approval-answer' },
      h('div', { class: 'approval-options', role: 'group', 'aria-label': 'Options' }, buttons),
      h('label', { for: this.commentId }, free ? 'Your answer (free text, or a comment with an option)' : 'Comment (optional)'),
      this.comment,
      free ? h('button', { type: 'button', class: 'approval-send', disabled: this.busy, onclick: () => this.answer(null) },
        'Send text answer') : null);
  }

  outcome(options) {
    const a = this.approval;
    const chosen = options.find((o) => o.id === a.selectedOption);
    const when = h('time', { datetime: a.answeredAt || '' }, timeOfDay(a.answeredAt));
    let what;
    if (a.state === 'expired') what = ['Expired at ', when, '; nobody answered.'];
    else if (a.state === 'cancelled') what = ['Cancelled at ', when, a.comment ? ` (${clip(a.comment, 200)})` : '', '.'];
    else {
      what = [personName(a.answeredBy), ' answered ',
        chosen ? h('strong', { class: 'approval-choice' }, chosen.label || chosen.id) : h('strong', null, 'in words'),
        ' at ', when, '.'];
    }
    return h('div', { class: 'approval-outcome' },
      h('p', { class: 'approval-answered' }, what),
      a.comment && a.state !== 'cancelled' ? h('blockquote', { class: 'approval-said' }, clip(a.comment, 2000)) : null);
  }

  tick() {
    const a = this.approval;
    if (this.ticker !== null && !this.el.isConnected && this.seenConnected) {
      this.destroy();
      return;
    }
    if (this.el.isConnected) this.seenConnected = true;
    if (a.state !== 'pending') return;
    if (!a.expiresAt) {
      this.expiry.textContent = 'never';
      return;
    }
    const left = (Date.parse(a.expiresAt) - Date.now()) / 1000;
    this.expiry.textContent = left > 0
      ? `in ${formatDuration(left)} (at ${timeOfDay(a.expiresAt)})`
      : `now (at ${timeOfDay(a.expiresAt)})`;
  }

  /** Answer with an option (or, with null, the free text alone). */
  async answer(option) {
    if (this.busy) return;
    const text = this.comment.value.trim();
    if (option === null && !text) {
      this.note = { text: 'Write your answer first.', kind: 'error' };
      this.paint();
      this.comment.focus();
      return;
    }
    this.busy = true;
    this.note = { text: 'Sending your answer…', kind: 'info' };
    this.paint();
    const body = { userId: currentUser() || undefined, comment: text || undefined };
    if (option !== null) body.option = option;
    try {
      const result = await api(`api/approvals/${encodeURIComponent(this.id)}/answer`, { method: 'POST', body });
      this.approval = result.approval || this.approval;
      this.note = {
        kind: 'info',
        text: result.resumed ? `Answered. ${this.approval.agentId} resumes its work.`
          : 'Answered. The work resumes once its other approvals are answered.',
      };
      this.comment.value = '';
    } catch (error) {
      if (error instanceof ApiError && error.code === 'approval_closed') {
        const current = error.detail && error.detail.approval;
        if (current && current.id === this.id) this.approval = current;
        const state = (current && current.state) || error.detail.state || 'closed';
        const by = current && current.answeredBy;
        this.note = {
          kind: 'error',
          text: by && state !== 'expired'
            ? `Already answered by ${personName(by)} (${STATE_LABELS[state] || state}).`
            : `Already ${STATE_LABELS[state] ? STATE_LABELS[state].toLowerCase() : state}.`,
        };
        this.refresh();
      } else {
        this.note = { text: `Could not answer: ${messageOf(error)}`, kind: 'error' };
      }
    } finally {
      this.busy = false;
      this.paint();
      this.onChange?.(this.approval);
    }
  }

  /** Re-read the approval from the server. */
  async refresh() {
    try {
      const data = await api(`api/approvals/${encodeURIComponent(this.id)}`);
      if (data && data.approval) {
        this.approval = data.approval;
        if (!this.busy) this.paint();
        this.onChange?.(this.approval);
      }
    } catch (error) {
      notify(`Could not reload approval ${this.id}: ${messageOf(error)}`, 'error');
    }
  }

  destroy() {
    clearInterval(this.ticker);
    this.ticker = null;
  }
}

/** The approval cards a parked item waits on, as links. */
export function waitingOn(item) {
  const ids = approvalIdsOf(item);
  if (!ids.length) return null;
  return h('span', { class: 'waiting-on' }, 'waits on ',
    ids.map((id, index) => [index ? ', ' : '', h('a', { href: approvalHash(id), class: 'approval-link' }, h('code', null, id))]));
}

function fact(name, value) {
  return [h('dt', null, name), h('dd', null, value)];
}
