// The live connection: one WebSocket to /ws subscribed to every agent.
//
// Protocol (shared with the server and `attn tail`): the client sends
// {"type":"subscribe","agents":"*","lastSeq":N}; the server replays buffered
// events newer than N, then answers {"type":"subscribed","seq":current}; or,
// when N is older than its buffer, {"type":"resync","seq":current} and the
// client reloads its state over REST. Event frames carry a server-wide
// monotonic `seq`, so a frame seen twice is dropped here.
//
// Reconnects back off from 0.5 s to 5 s. A reconnect that needed more than
// one try (the server was down, so it may have restarted and renumbered its
// events) or a `subscribed` seq below the last one seen also reloads over REST.

import { getToken } from './api.js';

const PING_EVERY_MS = 20_000;
const PONG_WITHIN_MS = 10_000;
const BACKOFF_MS = [500, 1000, 2000, 3000, 5000];

export class LiveConnection {
  /**
   * handlers: {onEvent(frame), onResync(), onStatus(status, detail), onAuthNeeded()}.
   * status is one of connecting, live, reconnecting, unauthorized.
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.lastSeq = null;
    this.socket = null;
    this.failures = 0;
    this.retryTimer = null;
    this.pingTimer = null;
    this.pongTimer = null;
    this.subscribedOnce = false;
    this.stopped = false;
    this.eventsReceived = 0;
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.clearPing();
    if (this.socket) this.socket.close(1000, 'page closed');
    this.socket = null;
  }

  /** Drop the current socket and connect again now (e.g. after a new token). */
  restart() {
    this.failures = 0;
    clearTimeout(this.retryTimer);
    if (this.socket) {
      const old = this.socket;
      this.socket = null;
      old.onclose = null;
      old.close(1000, 'reconnecting');
    }
    this.clearPing();
    this.connect();
  }

  url() {
    const url = new URL('ws', window.location.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.hash = '';
    url.search = '';
    const token = getToken();
    if (token) url.searchParams.set('token', token);
    return url.toString();
  }

  connect() {
    if (this.stopped) return;
    this.status(this.subscribedOnce ? 'reconnecting' : 'connecting');
    let socket;
    try {
      socket = new WebSocket(this.url());
    } catch {
      this.failures += 1;
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.send({ type: 'subscribe', agents: '*', lastSeq: this.lastSeq });
      this.schedulePing();
    };
    socket.onmessage = (message) => this.receive(message.data);
    socket.onclose = (close) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.clearPing();
      if (close.code === 4401 || close.code === 1008) {
        this.status('unauthorized');
        this.handlers.onAuthNeeded?.();
        return;
      }
      this.failures += 1;
      this.scheduleReconnect();
    };
  }

  /** Give up on the current socket at once (no closing handshake) and reconnect. */
  drop() {
    const socket = this.socket;
    this.socket = null;
    this.clearPing();
    if (socket) {
      socket.onclose = null;
      socket.onmessage = null;
      socket.close(4000, 'no pong');
    }
    this.failures += 1;
    this.scheduleReconnect();
  }

  scheduleReconnect() {
    if (this.stopped) return;
    this.status(this.subscribedOnce ? 'reconnecting' : 'connecting');
    const base = BACKOFF_MS[Math.min(Math.max(this.failures - 1, 0), BACKOFF_MS.length - 1)];
    const delay = base * (0.8 + Math.random() * 0.4);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
    }
  }

  receive(text) {
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if (!frame || typeof frame !== 'object') return;
    switch (frame.type) {
      case 'event':
        if (typeof frame.seq === 'number') {
          if (this.lastSeq !== null && frame.seq <= this.lastSeq) return;
          this.lastSeq = frame.seq;
        }
        this.eventsReceived += 1;
        this.handlers.onEvent(frame);
        break;
      case 'subscribed': {
        const restarted = this.lastSeq !== null && typeof frame.seq === 'number' && frame.seq < this.lastSeq;
        const reload = !this.subscribedOnce || restarted || this.failures > 1;
        if (typeof frame.seq === 'number' && (this.lastSeq === null || restarted || frame.seq > this.lastSeq)) {
          this.lastSeq = frame.seq;
        }
        this.subscribedOnce = true;
        this.failures = 0;
        this.status('live');
        if (reload) this.handlers.onResync();
        break;
      }
      case 'resync':
        if (typeof frame.seq === 'number') this.lastSeq = frame.seq;
        this.subscribedOnce = true;
        this.failures = 0;
        this.status('live');
        this.handlers.onResync();
        break;
      case 'pong':
        clearTimeout(this.pongTimer);
        this.pongTimer = null;
        break;
      case 'error':
        if (frame.code === 'unauthorized') {
          this.status('unauthorized');
          this.handlers.onAuthNeeded?.();
        }
        break;
      default:
        break;
    }
  }

  schedulePing() {
    this.clearPing();
    this.pingTimer = setInterval(() => {
      if (this.pongTimer !== null) return;
      this.send({ type: 'ping' });
      // No pong in time: the connection is dead (a network drop), start over.
      this.pongTimer = setTimeout(() => {
        this.pongTimer = null;
        this.drop();
      }, PONG_WITHIN_MS);
    }, PING_EVERY_MS);
  }

  clearPing() {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
    this.pingTimer = null;
    this.pongTimer = null;
  }

  status(value) {
    if (this.currentStatus === value) return;
    this.currentStatus = value;
    this.handlers.onStatus?.(value);
  }
}
