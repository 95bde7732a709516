// #/work?task=<id>: where a notification about a task navigates (000 §12.3,
// path /work?task=…). Tasks and requirements have no page in the web UI yet
// (000 §15 is future work), so this page names the task and says so, and
// points to what the UI does show about it.

import { clip, h } from './dom.js';

export class WorkView {
  constructor(taskId) {
    this.taskId = taskId;
    this.title = taskId ? `Task ${clip(taskId, 40)}` : 'Work';
    this.crumbs = [{ label: 'Agents', href: '#/' }, { label: this.title }];
    this.el = h('section', { class: 'work panel' },
      h('h1', null, taskId ? ['Task ', h('code', null, clip(taskId, 120))] : 'Work items'),
      h('p', null, 'Tasks and requirements do not have a page in the web UI yet.'),
      h('p', null, 'What agents asked about it is under ', h('a', { href: '#/approvals' }, 'Approvals'),
        '; what they did is in each agent\'s mailbox timeline (', h('a', { href: '#/' }, 'Agents'), ').'));
  }

  load() {}

  onEvents() {}

  destroy() {}
}
