// The filters of the Agent Mind view (000 §9, §3.3, §16; UI-02, UI-03): category
// chips, a type menu and status chips, each chip with its count. Categories,
// types and their labels come from the type registry (types.js); a change
// of filter is reported to the view, which reloads its timeline.

import { agentPath, api, query } from './api.js';
import { STATUSES, STATUS_LABELS, h, replaceChildren } from './dom.js';
import { allCategories, allTypes, categoryLabel, typeOf } from './types.js';

/** Every status, as the mailbox listing's `status` filter takes them. */
export const ALL_STATUSES = STATUSES.join(',');

export class FilterPanel {
  /** onChange(): the filter changed (the view reloads its timeline and counts). */
  constructor(agentName, onChange) {
    this.agentName = agentName;
    this.onChange = onChange;
    this.filter = { category: null, type: null, status: null };
    this.counts = null;
    this.generation = 0;
    this.destroyed = false;
    this.categoryChips = h('div', { class: 'chips', role: 'group', 'aria-label': 'Filter by category' });
    this.typeSelect = h('select', { id: 'type-filter' });
    this.typeSelect.addEventListener('change', () => this.set({ type: this.typeSelect.value || null }));
    this.statusChips = h('div', { class: 'chips', role: 'group', 'aria-label': 'Filter by status' });
    this.el = h('section', { class: 'filters panel', 'aria-labelledby': 'filters-heading' },
      h('h2', { id: 'filters-heading' }, 'Filters'),
      h('div', { class: 'filter-row' }, h('span', { class: 'filter-name', 'aria-hidden': 'true' }, 'Category'),
        this.categoryChips),
      h('div', { class: 'filter-row' }, h('label', { class: 'filter-name', for: 'type-filter' }, 'Type'),
        this.typeSelect),
      h('div', { class: 'filter-row' }, h('span', { class: 'filter-name', 'aria-hidden': 'true' }, 'Status'),
        this.statusChips));
    this.render();
  }

  set(change) {
    Object.assign(this.filter, change);
    this.render();
    this.onChange();
  }

  /** Whether an item passes the filters. */
  matches(item) {
    const { category, type, status } = this.filter;
    if (status && item.status !== status) return false;
    if (type && item.sourceType !== type) return false;
    if (category && typeOf(item.sourceType).category !== category) return false;
    return true;
  }

  async loadCounts() {
    const generation = ++this.generation;
    const categories = allCategories();
    const { category, type, status } = this.filter;
    const count = (params) => api(agentPath(this.agentName, `/mailbox${query({ ...params, limit: 1 })}`))
      .then((data) => data.total);
    try {
      const [byCategory, byStatus] = await Promise.all([
        Promise.all(categories.map((c) => count({ category: c, status: status || ALL_STATUSES }))),
        Promise.all(STATUSES.map((s) => count({ category, type, status: s }))),
      ]);
      if (generation !== this.generation || this.destroyed) return;
      this.counts = {
        category: Object.fromEntries(categories.map((c, i) => [c, byCategory[i]])),
        status: Object.fromEntries(STATUSES.map((s, i) => [s, byStatus[i]])),
        allCategories: byCategory.reduce((a, b) => a + b, 0),
        allStatuses: byStatus.reduce((a, b) => a + b, 0),
      };
      this.renderCounts();
    } catch {
      // Counts stay as they were; the next change retries.
    }
  }

  render() {
    const categories = allCategories();
    const { category, status } = this.filter;
    replaceChildren(this.categoryChips,
      chip('All', null, category === null, () => this.set({ category: null, type: null }), 'category'),
      categories.map((c) => chip(categoryLabel(c), c, category === c,
        () => this.set({ category: c, type: null }), 'category')));
    replaceChildren(this.statusChips,
      chip('All', null, status === null, () => this.set({ status: null }), 'status'),
      STATUSES.map((s) => chip(STATUS_LABELS[s], s, status === s, () => this.set({ status: s }), 'status',
        h('span', { class: `status-dot status-${s}`, 'aria-hidden': 'true' }))));
    const types = allTypes().filter((t) => !category || t.category === category);
    const groups = new Map();
    for (const t of types) {
      if (!groups.has(t.category)) groups.set(t.category, []);
      groups.get(t.category).push(t);
    }
    replaceChildren(this.typeSelect,
      h('option', { value: '' }, category ? `All ${categoryLabel(category).toLowerCase()} types` : 'All types'),
      [...groups.entries()].map(([c, list]) => h('optgroup', { label: categoryLabel(c) },
        list.map((t) => h('option', { value: t.name }, `${t.icon || ''} ${t.label}`.trim())))));
    this.typeSelect.value = this.filter.type || '';
    this.renderCounts();
  }

  renderCounts() {
    const counts = this.counts;
    for (const button of this.el.querySelectorAll('.chips .chip')) {
      const { group, value } = button.dataset;
      let n = null;
      if (counts) {
        if (group === 'category') n = value ? counts.category[value] : counts.allCategories;
        else n = value ? counts.status[value] : counts.allStatuses;
      }
      const span = button.querySelector('.count');
      span.textContent = n === null || n === undefined ? '' : String(n);
    }
  }

  destroy() {
    this.destroyed = true;
  }
}

function chip(label, value, pressed, onclick, group, marker = null) {
  return h('button', {
    type: 'button', class: 'chip', 'aria-pressed': String(pressed),
    dataset: { group, value: value || '' }, onclick,
  }, marker, h('span', { class: 'chip-label' }, label), ' ', h('span', { class: 'count' }));
}
