// One agent of a spawn tree, beside the tree (seed 002): what it does now
// (run state, unread mail, turns, read-only, its slot), what a person can do
// with it (send mail and see the delivery outcome and reason, interrupt,
// start, stop, remove with its subtree after a confirmation, spawn a child
// with a task) and the RESULTs it received. Every refusal is shown where the
// action was taken, in the server's words.

import { agentPath, api } from './api.js';
import { clip, h, replaceChildren, uid } from './dom.js';
import { messageOf, notify } from './notices.js';
import { deliveryList } from './receipts.js';
import { ResultList } from './tree_results.js';
import { runBadge } from './treeparts.js';

const MAX_MAIL = 100_000;
/** Who a person's mail is from (the route's default sender). */
const SENDER = 'user';

export class AgentPanel {
  /**
   * view: the TreeView (treeId, subtreeOf(id), slots, reloadSoon(), afterRemove(id));
   * node: the node view of the agent; transcript: the TranscriptDialog.
   */
  constructor(view, node, transcript) {
    this.view = view;
    this.node = node;
    this.id = node.agentId;
    this.destroyed = false;
    this.results = new ResultList(this.id, transcript);
    this.build();
    this.update(node);
  }

  build() {
    const headingId = uid('agent-heading');
    this.heading = h('h2', { id: headingId, class: 'agent-path' });
    this.badge = h('span');
    this.idLine = h('p', { class: 'muted agent-id-line' });
    this.description = h('p', { class: 'agent-description', hidden: true });
    this.facts = h('dl', { class: 'facts agent-facts' });
    this.buttons = {
      start: h('button', { type: 'button', onclick: () => this.control('start') }, 'Start'),
      stop: h('button', { type: 'button', onclick: () => this.control('stop') }, 'Stop'),
      interrupt: h('button', { type: 'button', onclick: () => this.interrupt() }, 'Interrupt'),
      remove: h('button', { type: 'button', class: 'danger', onclick: () => this.confirmRemove() }, 'Remove…'),
    };
    this.status = h('p', { class: 'action-status', role: 'status' });
    this.error = h('p', { class: 'post-error action-error', role: 'alert', hidden: true });
    this.controls = h('div', { class: 'controls', role: 'group', 'aria-label': 'Agent controls' },
      this.buttons.start, this.buttons.stop, this.buttons.interrupt, this.buttons.remove);
    this.el = h('section', { class: 'panel tree-agent', 'aria-labelledby': headingId, dataset: { agent: this.id } },
      h('div', { class: 'attention-top' }, this.heading, this.badge),
      this.idLine, this.description, this.facts, this.controls, this.status, this.error,
      this.mailForm(), this.spawnForm(), this.results.el, this.removeDialog());
  }

  mailForm() {
    const textId = uid('mail-text');
    this.mailLabel = h('label', { for: textId, class: 'composer-label' }, 'Mail');
    this.mailText = h('textarea', { id: textId, name: 'text', rows: '2', maxlength: String(MAX_MAIL), placeholder: 'Text of the mail' });
    this.mailText.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.sendMail();
      }
    });
    this.mailButton = h('button', { type: 'submit', class: 'primary' }, 'Send mail');
    this.mailResult = h('div', { class: 'mail-result', role: 'status' });
    this.mailError = h('p', { class: 'post-error', role: 'alert', hidden: true });
    const form = h('form', { class: 'channel-composer tree-mail', 'aria-label': 'Send mail' },
      this.mailLabel, this.mailText, this.mailButton, this.mailResult, this.mailError);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.sendMail();
    });
    return form;
  }

  spawnForm() {
    const nameId = uid('child-name');
    const taskId = uid('child-task');
    const roleId = uid('child-role');
    this.childName = h('input', { id: nameId, name: 'name', type: 'text', maxlength: '32', autocomplete: 'off', spellcheck: 'false' });
    this.childTask = h('textarea', { id: taskId, name: 'task', rows: '2', maxlength: String(MAX_MAIL) });
    this.childRole = h('input', { id: roleId, name: 'description', type: 'text', maxlength: '2000', autocomplete: 'off' });
    this.spawnButton = h('button', { type: 'submit', class: 'primary' }, 'Spawn child');
    this.spawnResult = h('div', { class: 'mail-result', role: 'status' });
    this.spawnError = h('p', { class: 'post-error', role: 'alert', hidden: true });
    const form = h('form', { class: 'group-form spawn-form' },
      h('label', { for: nameId }, 'Child name'), this.childName,
      h('p', { class: 'hint' }, '1-32 characters of a-z, 0-9, _ and -; its path is this agent\'s path and /name.'),
      h('label', { for: taskId }, 'Task (optional: sent as its first mail)'), this.childTask,
      h('label', { for: roleId }, 'Role (optional)'), this.childRole,
      this.spawnButton, this.spawnResult, this.spawnError);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.spawn();
    });
    this.spawnDetails = h('details', { class: 'new-group spawn-child' }, h('summary', null, 'Spawn a child…'), form);
    return this.spawnDetails;
  }

  removeDialog() {
    const titleId = uid('remove-title');
    this.removeWhat = h('p');
    this.dialog = h('dialog', { class: 'remove-dialog', 'aria-labelledby': titleId },
      h('form', { method: 'dialog' },
        h('h2', { id: titleId }, 'Remove this agent?'), this.removeWhat,
        h('div', { class: 'dialog-actions' },
          h('button', { type: 'submit', value: 'keep' }, 'Keep it'),
          h('button', { type: 'submit', value: 'remove', class: 'danger' }, 'Remove'))));
    return this.dialog;
  }

  /** Show the node's current view (from the tree's listing or a live event). */
  update(node) {
    this.node = node;
    const path = node.path || this.id;
    this.heading.textContent = path;
    replaceChildren(this.badge, runBadge(node.state));
    replaceChildren(this.idLine, 'agent ', h('code', null, this.id), ' · ',
      h('a', { href: `#/agents/${encodeURIComponent(this.id)}` }, 'Agent Mind'),
      node.parentId ? [' · spawned by ', h('code', null, node.parentId)] : ' · root of the tree');
    this.description.textContent = node.description || '';
    this.description.hidden = !node.description;
    const slots = this.view.slots || {};
    const slot = (slots.holders || []).includes(path) ? 'holds one'
      : (slots.waiting || []).includes(path) ? 'waits for one'
        : (slots.reserved || []).includes(path) ? 'reserved' : 'none';
    const facts = [
      ['Unread mail', String(node.unread ?? 0)],
      ['Turns settled', String(node.turns ?? 0)],
      ['Turn slot', node.parentId ? slot : 'the root needs none'],
      ['Read-only', node.readOnly ? 'yes: its turn reads mail sent in Plan mode' : 'no'],
      ['Plan mode', node.plan ? 'on: mail it sends is read-only' : 'off'],
    ];
    replaceChildren(this.facts, facts.map(([k, v]) => [h('dt', null, k), h('dd', null, v)]));
    const state = node.state;
    this.buttons.stop.disabled = state === 'stopped';
    this.buttons.interrupt.disabled = state === 'stopped' || state === 'idle';
    this.buttons.remove.hidden = !node.parentId;
    this.mailLabel.textContent = `Mail to ${path}`;
  }

  load() {
    return this.results.load(true);
  }

  // ------------------------------------------------------------- actions

  say(text) {
    this.status.textContent = text;
    this.error.hidden = true;
  }

  fail(text) {
    this.status.textContent = '';
    this.error.textContent = text;
    this.error.hidden = false;
  }

  async control(action) {
    const button = this.buttons[action];
    button.disabled = true;
    try {
      await api(agentPath(this.id, `/control/${action}`), { method: 'POST' });
      if (!this.destroyed) this.say(action === 'start' ? `${this.node.path} started: its unread mail wakes it.` : `${this.node.path} stopped: mail waits until it starts.`);
    } catch (error) {
      if (!this.destroyed) this.fail(`Could not ${action} ${this.node.path}: ${messageOf(error)}`);
    } finally {
      button.disabled = false;
      this.view.reloadSoon();
    }
  }

  async interrupt() {
    const button = this.buttons.interrupt;
    button.disabled = true;
    try {
      const answer = await api(agentPath(this.id, '/interrupt'), { method: 'POST', body: { reason: 'interrupted by a person' } });
      if (this.destroyed) return;
      this.say(answer && answer.interruptedItemId
        ? `Interrupted ${this.node.path}: its turn ends as interrupted and its parent gets the RESULT.`
        : `${this.node.path} was not in a turn; its wake marks were cleared.`);
    } catch (error) {
      if (!this.destroyed) this.fail(`Could not interrupt ${this.node.path}: ${messageOf(error)}`);
    } finally {
      button.disabled = false;
      this.view.reloadSoon();
    }
  }

  confirmRemove() {
    const below = this.view.subtreeOf(this.id).length - 1;
    this.removeWhat.textContent = `${this.node.path}${below > 0 ? ` and the ${below} agent(s) below it` : ''} stop and are no longer hosted; their stored mail and results stay.`;
    const onClose = async () => {
      this.dialog.removeEventListener('close', onClose);
      if (this.dialog.returnValue !== 'remove') {
        this.buttons.remove.focus();
        return;
      }
      try {
        await api(agentPath(this.id), { method: 'DELETE' });
        notify(`Removed ${this.node.path}.`);
        this.view.afterRemove(this.id);
      } catch (error) {
        if (!this.destroyed) this.fail(`Could not remove ${this.node.path}: ${messageOf(error)}`);
      }
    };
    this.dialog.returnValue = '';
    this.dialog.addEventListener('close', onClose);
    this.dialog.showModal();
    this.dialog.querySelector('button[value="keep"]').focus();
  }

  async sendMail() {
    const text = this.mailText.value;
    this.mailError.hidden = true;
    if (!text.trim()) {
      this.mailError.textContent = 'Write the mail first.';
      this.mailError.hidden = false;
      this.mailText.focus();
      return;
    }
    this.mailButton.disabled = true;
    try {
      const answer = await api(agentPath(this.id, '/mail'), { method: 'POST', body: { text, senderId: SENDER } });
      if (this.destroyed) return;
      this.mailText.value = '';
      replaceChildren(this.mailResult, h('span', { class: 'muted' }, 'Delivered: '), deliveryList([answer.delivery]));
    } catch (error) {
      if (this.destroyed) return;
      replaceChildren(this.mailResult);
      const reason = error && error.detail && error.detail.reason;
      this.mailError.textContent = `Not sent: ${messageOf(error)}${reason && !messageOf(error).includes(reason) ? ` (${reason})` : ''}`;
      this.mailError.hidden = false;
    } finally {
      this.mailButton.disabled = false;
      this.view.reloadSoon();
    }
  }

  async spawn() {
    const name = this.childName.value.trim();
    const task = this.childTask.value;
    this.spawnError.hidden = true;
    if (!name) {
      this.spawnError.textContent = 'Give the child a name.';
      this.spawnError.hidden = false;
      this.childName.focus();
      return;
    }
    const body = { name };
    if (task.trim()) body.task = task;
    if (this.childRole.value.trim()) body.description = this.childRole.value.trim();
    this.spawnButton.disabled = true;
    try {
      const made = await api(agentPath(this.id, '/children'), { method: 'POST', body });
      if (this.destroyed) return;
      this.childName.value = '';
      this.childTask.value = '';
      this.childRole.value = '';
      replaceChildren(this.spawnResult, h('span', null, 'Spawned ', h('code', null, made.node.path), '. '),
        made.delivery ? [h('span', { class: 'muted' }, 'Its task: '), deliveryList([made.delivery])] : null);
    } catch (error) {
      if (this.destroyed) return;
      replaceChildren(this.spawnResult);
      this.spawnError.textContent = `Not spawned: ${clip(messageOf(error), 300)}`;
      this.spawnError.hidden = false;
    } finally {
      this.spawnButton.disabled = false;
      this.view.reloadSoon();
    }
  }

  destroy() {
    this.destroyed = true;
    this.results.destroy();
    if (this.dialog.open) this.dialog.close();
  }
}
