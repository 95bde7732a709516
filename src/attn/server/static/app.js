// attn web UI: start-up, routing (#/, #/agents/<name>[?chat=main],
// #/channels[/<key>], #/trees[/<treeId>[?agent=<agentId>]],
// #/approvals[/<id>], #/runs[/<runId>], #/work?task=<id>), the notification bell, the live
// connection and its indicator, the token prompt and page-wide error handling.
// Everything shown comes from the REST API and the WebSocket (see live.js).

import { getToken, onAuthNeeded, setToken } from './api.js';
import { ApprovalsView } from './approvals.js';
import { NotificationBell } from './bell.js';
import { ChannelsView } from './channels.js';
import { h, replaceChildren } from './dom.js';
import { LiveConnection } from './live.js';
import { MindView } from './mind.js';
import { messageOf, notify } from './notices.js';
import { OverviewView } from './overview.js';
import { loadPeople } from './people.js';
import { RunView } from './run_view.js';
import { RunsView } from './runs.js';
import { TreeView } from './tree.js';
import { TreeListView } from './trees.js';
import { loadTypes } from './types.js';
import { WorkView } from './work.js';

const main = document.getElementById('main');
const crumbs = document.getElementById('crumbs');
const connection = document.getElementById('connection');
const bell = new NotificationBell(document.getElementById('bell'));

let view = null;
let pending = [];
let flushScheduled = false;

const CONNECTION_TEXT = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  unauthorized: 'Token needed',
};

function showConnection(status) {
  connection.className = `conn conn-${status}`;
  connection.dataset.status = status;
  connection.querySelector('.conn-text').textContent = CONNECTION_TEXT[status] || status;
}

// Events are applied once per animation frame, in one batch: a burst of
// events costs one layout, and the page stays responsive.
function flush() {
  flushScheduled = false;
  const batch = pending;
  pending = [];
  if (!batch.length) return;
  bell.onEvents(batch);
  if (view) view.onEvents(batch);
}

function scheduleFlush() {
  if (flushScheduled) return;
  flushScheduled = true;
  requestAnimationFrame(flush);
  // A hidden tab gets no animation frames: flush anyway, less often.
  setTimeout(() => {
    if (flushScheduled) flush();
  }, 250);
}

function reloadAll() {
  loadTypes().catch((error) => notify(`Could not load the item types: ${messageOf(error)}`, 'error'));
  loadPeople().catch(() => {}).finally(() => bell.resync());
  if (view) view.load();
}

const live = new LiveConnection({
  onEvent(frame) {
    pending.push(frame);
    scheduleFlush();
  },
  onResync() {
    pending = [];
    reloadAll();
  },
  onStatus: showConnection,
  onAuthNeeded: authNeeded,
});

/** The route of the address: {page: 'overview' | 'mind' | 'channels' | 'trees' | 'tree' | 'approvals' | 'runs' | 'run' | 'work', ...its parameters}. */
function parseRoute() {
  const raw = window.location.hash.replace(/^#/, '') || '/';
  const [path, search = ''] = raw.split('?');
  let decoded;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    decoded = path;
  }
  const agent = decoded.match(/^\/agents\/(.+)$/);
  if (agent) return { page: 'mind', name: agent[1], openChat: new URLSearchParams(search).has('chat') };
  const approvals = decoded.match(/^\/approvals(?:\/(.+))?$/);
  if (approvals) return { page: 'approvals', approvalId: approvals[1] || null };
  if (decoded === '/runs') return { page: 'runs' };
  const run = decoded.match(/^\/runs\/(.+)$/);
  if (run) return { page: 'run', runId: run[1] };
  if (decoded === '/work') return { page: 'work', taskId: new URLSearchParams(search).get('task') || null };
  const channels = decoded.match(/^\/channels(?:\/(.+))?$/);
  if (channels) {
    const conversation = new URLSearchParams(search).get('conversation');
    return { page: 'channels', key: channels[1] || null, conversationId: conversation || null };
  }
  if (decoded === '/trees') return { page: 'trees' };
  const tree = decoded.match(/^\/trees\/(.+)$/);
  if (tree) return { page: 'tree', treeId: tree[1], agentId: new URLSearchParams(search).get('agent') || null };
  return { page: 'overview' };
}

function renderChrome() {
  document.title = `${view.title} · attn`;
  replaceChildren(crumbs,
    [{ label: 'Agents', href: '#/' }, ...view.crumbs.slice(1)].map((crumb, index, all) => h('li', null,
      index === all.length - 1 && all.length > 1
        ? h('span', { 'aria-current': 'page' }, crumb.label)
        : h('a', { href: crumb.href || '#/' }, crumb.label))));
}

function route() {
  const where = parseRoute();
  // Inside the channel view a new channel keeps the list (and its filters).
  if (where.page === 'channels' && view instanceof ChannelsView) {
    view.navigate(where.key, where.conversationId);
    renderChrome();
    return;
  }
  // Inside one tree another agent keeps the tree (and the live rows).
  if (where.page === 'tree' && view instanceof TreeView && view.treeId === where.treeId) {
    view.navigate(where.agentId);
    return;
  }
  if (view) view.destroy();
  pending = [];
  if (where.page === 'mind') view = new MindView(where.name, { openChat: where.openChat });
  else if (where.page === 'approvals') view = new ApprovalsView(where.approvalId);
  else if (where.page === 'runs') view = new RunsView();
  else if (where.page === 'run') view = new RunView(where.runId);
  else if (where.page === 'work') view = new WorkView(where.taskId);
  else if (where.page === 'channels') view = new ChannelsView(where.key, where.conversationId);
  else if (where.page === 'trees') view = new TreeListView();
  else if (where.page === 'tree') view = new TreeView(where.treeId, where.agentId);
  else view = new OverviewView();
  view.onTitle = renderChrome;
  replaceChildren(main, view.el);
  renderChrome();
  view.load();
}

/** Show the token dialog; `rejected`: the token in use was just refused. */
function askForToken(rejected = false) {
  const dialog = document.getElementById('token-dialog');
  const error = document.getElementById('token-error');
  if (rejected) error.textContent = 'That token was not accepted.';
  if (dialog.open) return;
  if (!rejected) error.textContent = '';
  dialog.showModal();
}

function authNeeded() {
  const rejected = getToken() !== null;
  if (rejected) setToken(null);
  askForToken(rejected);
}

document.getElementById('token-form').addEventListener('submit', () => {
  const value = document.getElementById('token-input').value.trim();
  if (!value) return;
  setToken(value);
  live.restart();
  reloadAll();
});

onAuthNeeded(authNeeded);

// Never show a raw stack trace: one line, the error's message only.
window.addEventListener('error', (event) => {
  notify(`Something went wrong in the page: ${event.message || 'unknown error'}`, 'error');
});
window.addEventListener('unhandledrejection', (event) => {
  if (event.reason && event.reason.name === 'AbortError') return;
  notify(`Something went wrong: ${messageOf(event.reason)}`, 'error');
});

window.addEventListener('hashchange', () => {
  route();
  main.focus({ preventScroll: true });
});

// For tests and benchmarks: the live connection and the current view.
window.attn = {
  live,
  get view() {
    return view;
  },
};

showConnection('connecting');
loadPeople()
  .catch((error) => notify(`Could not load the people: ${messageOf(error)}`, 'error'))
  .finally(() => bell.load());
loadTypes()
  .catch((error) => notify(`Could not load the item types: ${messageOf(error)}`, 'error'))
  .finally(() => {
    route();
    live.start();
  });
