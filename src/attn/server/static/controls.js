// The controls of one agent on its Agent Mind page (UI-05): start, stop,
// pause and resume, and cancelling the current work after a confirmation
// (the page's #cancel-dialog), with the reason kept on the record.

import { agentPath, api } from './api.js';
import { clip, h, replaceChildren } from './dom.js';
import { messageOf, notify } from './notices.js';
import { typeBadge } from './types.js';

const DONE = { start: 'started', stop: 'stopped', pause: 'paused', resume: 'resumed' };

export class AgentControls {
  /** reload(): read the agent's state again (after an action); reloadSoon(): the same, throttled. */
  constructor(agentName, { reload, reloadSoon }) {
    this.agentName = agentName;
    this.reload = reload;
    this.reloadSoon = reloadSoon;
    this.focus = null;
    this.buttons = {
      start: h('button', { type: 'button', onclick: () => this.control('start') }, 'Start'),
      stop: h('button', { type: 'button', onclick: () => this.control('stop') }, 'Stop'),
      pause: h('button', { type: 'button', onclick: () => this.control('pause') }, 'Pause'),
      resume: h('button', { type: 'button', onclick: () => this.control('resume') }, 'Resume'),
      cancel: h('button', { type: 'button', class: 'danger', onclick: () => this.confirmCancel() }, 'Cancel current work…'),
    };
    const b = this.buttons;
    this.el = h('div', { class: 'controls', role: 'group', 'aria-label': 'Agent controls' },
      b.start, b.stop, b.pause, b.resume, b.cancel);
  }

  /** Enable what makes sense for the agent's /mind snapshot (null: not known yet). */
  render(mind) {
    const running = mind ? mind.running : true;
    const paused = mind ? mind.paused : false;
    this.focus = (mind && mind.currentFocus) || null;
    const b = this.buttons;
    b.start.disabled = !mind || running;
    b.stop.disabled = !mind || !running;
    b.pause.disabled = !mind || !running || paused;
    b.resume.disabled = !mind || !paused;
    b.cancel.disabled = !mind || !running || !this.focus;
  }

  async control(action) {
    this.buttons[action].disabled = true;
    try {
      await api(agentPath(this.agentName, `/control/${action}`), { method: 'POST' });
      notify(`${this.agentName} ${DONE[action]}.`);
    } catch (error) {
      notify(`Could not ${action} ${this.agentName}: ${messageOf(error)}`, 'error');
    }
    await this.reload();
  }

  confirmCancel() {
    const focus = this.focus;
    if (!focus) return;
    const dialog = document.getElementById('cancel-dialog');
    const what = document.getElementById('cancel-what');
    replaceChildren(what, `${this.agentName} is working on `, typeBadge(focus.sourceType), ' ',
      h('q', null, clip(focus.summary, 120)),
      '. Cancelling stops this work for good; the item is completed as cancelled.');
    const reason = document.getElementById('cancel-reason');
    reason.value = 'cancelled by user';
    const onClose = async () => {
      dialog.removeEventListener('close', onClose);
      if (dialog.returnValue !== 'cancel') {
        this.buttons.cancel.focus();
        return;
      }
      try {
        const result = await api(agentPath(this.agentName, '/cancel'), {
          method: 'POST', body: { reason: reason.value.trim() || 'cancelled by user' },
        });
        notify(result && result.mailboxItemId ? `Cancelling ${result.mailboxItemId}.` : 'Nothing was being processed.');
      } catch (error) {
        notify(`Could not cancel: ${messageOf(error)}`, 'error');
      }
      this.reloadSoon();
      this.buttons.cancel.focus();
    };
    dialog.returnValue = '';
    dialog.addEventListener('close', onClose);
    dialog.showModal();
    dialog.querySelector('button[value="keep"]').focus();
  }
}
