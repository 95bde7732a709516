// Approvals (000 §13.2, UI-06): the page #/approvals (waiting ones first,
// oldest first; then the answered ones, newest first), the page of one
// approval #/approvals/<id>, and the panel of an agent's waiting approvals
// on its Agent Mind page. Cards are answered in place (approval_card.js) and
// kept current by the `approval:requested` and `approval:answered` events.

import { ApiError, api, query } from './api.js';
import { ApprovalCard } from './approval_card.js';
import { clip, h, replaceChildren } from './dom.js';
import { messageOf } from './notices.js';

const CLOSED = ['approved', 'rejected', 'answered', 'expired', 'cancelled'];
const PAGE = 100;

/** `?state=a&state=b…` plus other filters. */
function approvalsPath(states, params = {}) {
  const search = states.map((s) => `state=${encodeURIComponent(s)}`).join('&');
  const rest = query(params).replace(/^\?/, '');
  return `api/approvals?${[search, rest].filter(Boolean).join('&')}`;
}

/** The newest `PAGE` approvals in these states (the listing is oldest first). */
async function newest(states, params = {}) {
  const first = await api(approvalsPath(states, { ...params, limit: PAGE }));
  const total = first.totalCount || 0;
  if (total <= PAGE) return { approvals: first.approvals || [], total };
  const last = await api(approvalsPath(states, { ...params, limit: PAGE, offset: total - PAGE }));
  return { approvals: last.approvals || [], total };
}

/** Keeps cards by approval id: one card per approval, updated in place. */
class CardSet {
  constructor(onChange) {
    this.cards = new Map();
    this.onChange = onChange;
  }

  card(approval, options = {}) {
    let card = this.cards.get(approval.id);
    if (card) card.update(approval);
    else {
      card = new ApprovalCard(approval, { ...options, onChange: () => this.onChange?.() });
      this.cards.set(approval.id, card);
    }
    return card;
  }

  retain(ids) {
    for (const [id, card] of this.cards) {
      if (!ids.has(id)) {
        card.destroy();
        this.cards.delete(id);
      }
    }
  }

  destroy() {
    this.retain(new Set());
  }
}

export class ApprovalsView {
  /** approvalId: show that one approval; null: every approval. */
  constructor(approvalId = null) {
    this.approvalId = approvalId;
    this.title = approvalId ? `Approval ${approvalId}` : 'Approvals';
    this.crumbs = [{ label: 'Agents', href: '#/' }, { label: 'Approvals', href: '#/approvals' },
      ...(approvalId ? [{ label: approvalId }] : [])];
    this.generation = 0;
    this.pending = [];
    this.closed = [];
    this.cards = new CardSet(() => this.regroup());
    this.error = h('p', { class: 'load-error', role: 'alert', hidden: true });
    this.pendingList = h('div', { class: 'approval-list', dataset: { group: 'pending' } });
    this.closedList = h('div', { class: 'approval-list', dataset: { group: 'closed' } });
    this.pendingHeading = h('h2', { id: 'pending-heading' }, 'Waiting for an answer');
    this.closedHeading = h('h2', { id: 'closed-heading' }, 'Answered');
    this.pendingEmpty = h('p', { class: 'muted', hidden: true }, 'Nothing is waiting for an answer.');
    this.closedEmpty = h('p', { class: 'muted', hidden: true }, 'No approval has been answered yet.');
    this.single = h('div', { class: 'approval-single' });
    this.el = approvalId
      ? h('section', { class: 'approvals' },
        h('h1', null, 'Approval'), this.error, this.single,
        h('p', null, h('a', { href: '#/approvals' }, 'All approvals')))
      : h('section', { class: 'approvals' },
        h('h1', null, 'Approvals'),
        h('p', { class: 'hint' }, 'Decisions agents asked people for. The asking work waits, parked, while the agent serves other mail; your answer resumes it.'),
        this.error,
        h('section', { class: 'approval-group', 'aria-labelledby': 'pending-heading' },
          this.pendingHeading, this.pendingEmpty, this.pendingList),
        h('section', { class: 'approval-group', 'aria-labelledby': 'closed-heading' },
          this.closedHeading, this.closedEmpty, this.closedList));
  }

  async load() {
    const generation = ++this.generation;
    try {
      if (this.approvalId) {
        const data = await api(`api/approvals/${encodeURIComponent(this.approvalId)}`);
        if (generation !== this.generation) return;
        this.showOne(data.approval);
      } else {
        this.heard = new Map();
        const [pending, closed] = await Promise.all([newest(['pending']), newest(CLOSED)]);
        if (generation !== this.generation) return;
        // Events told while the pages loaded are newer than them: they win.
        const heard = this.heard;
        const fresh = (list) => list.map((a) => heard.get(a.id) || a);
        const told = [...heard.values()];
        const ids = (list) => new Set(list.map((a) => a.id));
        const known = new Set([...ids(pending.approvals), ...ids(closed.approvals)]);
        const extra = told.filter((a) => !known.has(a.id));
        this.pending = [...fresh(pending.approvals), ...extra].filter((a) => a.state === 'pending');
        this.closed = [...fresh(closed.approvals), ...extra, ...fresh(pending.approvals)]
          .filter((a, i, all) => a.state !== 'pending' && all.findIndex((b) => b.id === a.id) === i);
        this.closedTotal = closed.total;
        this.render();
      }
      this.error.hidden = true;
    } catch (error) {
      if (generation !== this.generation) return;
      if (error instanceof ApiError && error.status === 404 && this.approvalId) {
        replaceChildren(this.error, `There is no approval with id "${clip(this.approvalId, 80)}". `,
          h('a', { href: '#/approvals' }, 'See all approvals'));
      } else {
        this.error.textContent = `Could not load the approvals: ${messageOf(error)}`;
      }
      this.error.hidden = false;
    }
  }

  showOne(approval) {
    const card = this.cards.card(approval, { linkTitle: false });
    if (this.single.firstChild !== card.el) replaceChildren(this.single, card.el);
    this.title = clip(approval.title, 60);
    this.onTitle?.();
  }

  /** Move cards between the groups after an answer (states come from the cards). */
  regroup() {
    if (this.approvalId) return;
    const all = [...this.pending, ...this.closed].map((a) => (this.cards.cards.get(a.id) || { approval: a }).approval);
    this.pending = all.filter((a) => a.state === 'pending');
    this.closed = all.filter((a) => a.state !== 'pending');
    this.render();
  }

  render() {
    const closed = [...this.closed].sort((a, b) => String(b.answeredAt || '').localeCompare(String(a.answeredAt || '')));
    const pendingCards = this.pending.map((a) => this.cards.card(a).el);
    const closedCards = closed.map((a) => this.cards.card(a).el);
    this.cards.retain(new Set([...this.pending, ...closed].map((a) => a.id)));
    syncChildren(this.pendingList, pendingCards);
    syncChildren(this.closedList, closedCards);
    this.pendingEmpty.hidden = this.pending.length > 0;
    this.closedEmpty.hidden = closed.length > 0;
    this.pendingHeading.textContent = `Waiting for an answer (${Math.max(this.pending.length, 0)})`;
    const more = (this.closedTotal || 0) > closed.length ? ` (newest ${closed.length} of ${this.closedTotal})` : '';
    this.closedHeading.textContent = `Answered${more}`;
  }

  onEvents(frames) {
    for (const frame of frames) {
      const data = frame.data || {};
      if (frame.event !== 'approval:requested' && frame.event !== 'approval:answered') continue;
      const approval = data.approval;
      if (!approval) continue;
      this.heard?.set(approval.id, approval);
      if (this.approvalId) {
        if (approval.id === this.approvalId) this.showOne(approval);
        continue;
      }
      const rest = (list) => list.filter((a) => a.id !== approval.id);
      if (approval.state === 'pending') this.pending = [...rest(this.pending), approval];
      else {
        this.pending = rest(this.pending);
        this.closed = [...rest(this.closed), approval];
      }
      this.cards.card(approval);
      this.render();
    }
  }

  destroy() {
    this.generation += 1;
    this.cards.destroy();
  }
}

/** The approvals an agent waits on, on its Agent Mind page (hidden while there are none). */
export class AgentApprovals {
  constructor(agentId) {
    this.agentId = agentId;
    this.generation = 0;
    this.shown = []; // approvals, oldest first; answered ones stay until the next load
    this.heard = new Map(); // approvals events told of while a load was in flight
    this.cards = new CardSet(() => this.render());
    this.list = h('div', { class: 'approval-list' });
    this.heading = h('h2', { id: 'agent-approvals-heading' }, 'Waiting for a person');
    this.el = h('section', { class: 'agent-approvals panel', 'aria-labelledby': 'agent-approvals-heading', hidden: true },
      this.heading,
      h('p', { class: 'hint' }, `${agentId} asked for these decisions; its work on each waits, parked, until it is answered.`),
      this.list);
  }

  async load() {
    const generation = ++this.generation;
    this.heard = new Map();
    try {
      const data = await newest(['pending'], { agentId: this.agentId });
      if (generation !== this.generation) return;
      // What events told meanwhile is newer than the page: a request made while it
      // loaded must not vanish when the page (fetched before it) arrives.
      const byId = new Map(data.approvals.map((a) => [a.id, a]));
      for (const [id, approval] of this.heard) {
        if (byId.has(id) || approval.state === 'pending') byId.set(id, approval);
      }
      this.shown = [...byId.values()];
      this.render();
    } catch {
      // The agent's header says when the agent cannot be read.
    }
  }

  onEvents(frames) {
    let changed = false;
    for (const frame of frames) {
      const approval = frame.data && frame.data.approval;
      if (!approval || approval.agentId !== this.agentId) continue;
      if (frame.event !== 'approval:requested' && frame.event !== 'approval:answered') continue;
      this.heard.set(approval.id, approval);
      const known = this.shown.some((a) => a.id === approval.id);
      if (known) this.shown = this.shown.map((a) => (a.id === approval.id ? approval : a));
      else if (approval.state === 'pending') this.shown = [...this.shown, approval];
      changed = true;
    }
    if (changed) this.render();
  }

  render() {
    const cards = this.shown.map((a) => this.cards.card(a).el);
    this.cards.retain(new Set(this.shown.map((a) => a.id)));
    syncChildren(this.list, cards);
    const waiting = this.shown.filter((a) => (this.cards.cards.get(a.id)?.approval.state || a.state) === 'pending').length;
    this.heading.textContent = `Waiting for a person (${waiting})`;
    this.el.hidden = this.shown.length === 0;
  }

  destroy() {
    this.generation += 1;
    this.cards.destroy();
  }
}

/** Make `parent`'s children exactly `nodes`, in order, moving only what moved (typing keeps focus). */
function syncChildren(parent, nodes) {
  nodes.forEach((node, index) => {
    if (parent.children[index] !== node) parent.insertBefore(node, parent.children[index] || null);
  });
  while (parent.children.length > nodes.length) parent.lastElementChild.remove();
}
