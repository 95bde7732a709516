// Short messages at the top of the page: what an action did, or what went
// wrong (the server's one-line message, never a stack trace).

import { h } from './dom.js';

const MAX_NOTICES = 4;

/**
 * Show `message`. kind: 'info' (announced politely, gone after a few
 * seconds) or 'error' (announced at once, stays until dismissed).
 */
export function notify(message, kind = 'info') {
  const box = document.getElementById('notices');
  if (!box) return;
  const text = String(message || '').split('\n')[0].slice(0, 300);
  const close = h('button', { type: 'button', class: 'notice-close', 'aria-label': 'Dismiss' }, '×');
  const notice = h('div', { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : 'status' },
    h('span', { class: 'notice-text' }, text), close);
  close.addEventListener('click', () => notice.remove());
  box.append(notice);
  while (box.children.length > MAX_NOTICES) box.firstElementChild.remove();
  if (kind !== 'error') setTimeout(() => notice.remove(), 5000);
}

/** The message of any thrown value, without its stack. */
export function messageOf(error) {
  if (error && typeof error.message === 'string' && error.message) return error.message;
  return 'unexpected error';
}
