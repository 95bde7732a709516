// The mailbox timeline section of the Agent Mind view (000 §9, UI-02): its
// pages over REST (newest first; "Load earlier" continues by cursor below
// the oldest row shown), the reconciling re-read after live events, and the
// "Showing n of m" line. Rows themselves are timeline.js's; what an item
// does to the rest of the view (queue, focus) is the view's applyItem.

import { ApiError, api } from './api.js';
import { h } from './dom.js';
import { messageOf, notify } from './notices.js';
import { Timeline, keyOf } from './timeline.js';

const PAGE = 50;
const MISSING = 'That item is not in the loaded part of the timeline; use "Load earlier" or clear the filters.';

export class HistoryPanel {
  /**
   * mailboxQuery(extra): the listing's path with the view's filters;
   * applyItem(item, {decisions, activity, fromPage}): show one listed item.
   */
  constructor(agentName, { mailboxQuery, applyItem }) {
    this.mailboxQuery = mailboxQuery;
    this.applyItem = applyItem;
    this.exhausted = false;
    this.total = null;
    this.busy = false;
    this.generation = 0;
    this.destroyed = false;
    this.timeline = new Timeline(agentName, {
      onExpandStale: (id) => this.refreshAround(id),
      onMissing: () => notify(MISSING),
    });
    this.earlierButton = h('button', { type: 'button', class: 'load-earlier', onclick: () => this.loadEarlier() },
      'Load earlier…');
    this.info = h('p', { class: 'timeline-info muted' });
    this.empty = h('p', { class: 'muted', hidden: true }, 'No items match these filters.');
    this.el = h('section', { class: 'history panel', 'aria-labelledby': 'history-heading' },
      h('h2', { id: 'history-heading' }, 'Mailbox timeline'),
      this.empty, this.timeline.el, this.info, this.earlierButton);
  }

  /** Open the row of an item and show it; says so when it is not loaded. */
  reveal(id) {
    if (!this.timeline.reveal(id)) notify(MISSING);
  }

  /** Forget every row (the filters changed); the caller loads again. */
  clear() {
    this.timeline.clear();
    this.exhausted = false;
    this.total = null;
  }

  /** Load the newest page (reset) or the next older one. */
  async load(reset) {
    const generation = ++this.generation;
    // An older page continues after the oldest row shown: the cursor is its seq,
    // so rows that arrive or complete meanwhile are neither repeated nor skipped.
    const oldest = this.timeline.minKey();
    const cursor = !reset && oldest !== null && oldest < Number.MAX_SAFE_INTEGER ? String(oldest) : undefined;
    const fromStart = cursor === undefined;
    this.busy = true;
    this.renderInfo();
    try {
      const data = await api(this.mailboxQuery({ limit: PAGE, cursor }));
      if (generation !== this.generation || this.destroyed) return;
      this.applyPage(data.history || [], fromStart && !data.nextCursor, reset);
      this.total = data.total;
      if (!data.nextCursor) this.exhausted = true;
      else if (reset) this.exhausted = false;
    } catch (error) {
      if (generation !== this.generation || this.destroyed) return;
      // An unknown agent is said once, in the header.
      if (!(error instanceof ApiError && error.code === 'unknown_agent')) {
        notify(`Could not load the timeline: ${messageOf(error)}`, 'error');
      }
    } finally {
      if (generation === this.generation) this.busy = false;
      this.renderInfo();
    }
  }

  loadEarlier() {
    if (this.busy) return;
    this.load(false);
  }

  /** Bring the newest page up to date (activity summaries, decisions) after live events. */
  async reconcile() {
    if (this.busy || this.destroyed) return;
    const generation = this.generation;
    try {
      const data = await api(this.mailboxQuery({ limit: PAGE }));
      if (generation !== this.generation || this.busy || this.destroyed) return;
      this.applyPage(data.history || [], !data.nextCursor, false);
      this.total = data.total;
      this.renderInfo();
    } catch {
      // The next event or reload tries again; the live data stays shown.
    }
  }

  /** Re-read the page around one row (its activity summary was missing). */
  async refreshAround(id) {
    const record = this.timeline.get(id);
    if (!record) return;
    const index = this.timeline.order.indexOf(record);
    // The page starts ten rows newer than this one (a cursor lists rows below a seq).
    const start = this.timeline.order[Math.max(0, index - 10)];
    const cursor = start && start.key < Number.MAX_SAFE_INTEGER ? String(start.key + 1) : undefined;
    try {
      const data = await api(this.mailboxQuery({ limit: 30, cursor }));
      if (this.destroyed) return;
      for (const entry of data.history || []) {
        const { decisions, activity, ...item } = entry;
        if (this.timeline.has(item.id)) this.applyItem(item, { decisions, activity });
      }
    } catch {
      // The row keeps what it shows.
    }
  }

  /**
   * Apply one page of the listing. Rows in the page's key range that the
   * server no longer lists there are stale and go; a reset also drops rows
   * older than the page, and so does a `complete` page (the whole listing).
   * Rows newer than the page's newest (live arrivals after the server read
   * it) stay.
   */
  applyPage(history, complete, reset) {
    const ids = new Set(history.map((item) => item.id));
    const maxKey = history.length ? keyOf(history[0]) : Infinity;
    const minKey = history.length ? keyOf(history[history.length - 1]) : -Infinity;
    for (const id of this.timeline.ids()) {
      if (ids.has(id)) continue;
      const { key } = this.timeline.get(id);
      const inRange = key <= maxKey && key >= minKey;
      const older = key < minKey;
      if (inRange || ((reset || complete) && older) || (reset && !history.length)) this.timeline.remove(id);
    }
    for (const entry of history) {
      const { decisions, activity, ...item } = entry;
      this.applyItem(item, { decisions, activity, fromPage: true });
    }
  }

  /** Whether a row with this key belongs in the loaded part of the timeline. */
  accepts(key) {
    const oldest = this.timeline.minKey();
    return this.exhausted || oldest === null || key >= oldest;
  }

  renderInfo() {
    const shown = this.timeline.size;
    this.empty.hidden = shown > 0 || this.busy;
    this.earlierButton.hidden = this.exhausted && !this.busy;
    this.earlierButton.disabled = this.busy;
    this.earlierButton.textContent = this.busy ? 'Loading…' : 'Load earlier…';
    const total = typeof this.total === 'number' ? Math.max(this.total, shown) : null;
    this.info.textContent = total === null ? '' : `Showing ${shown} of ${total} items`;
  }

  destroy() {
    this.destroyed = true;
  }
}
