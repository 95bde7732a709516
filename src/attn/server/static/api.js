// The REST client and the streamed chat (SSE over fetch). Every error becomes
// an ApiError whose message is the server's one-line message: the page never
// shows a raw stack trace.

const TOKEN_KEY = 'attn.token';
let token = sessionStorage.getItem(TOKEN_KEY) || null;
const authListeners = new Set();

export class ApiError extends Error {
  /** detail: the error body's other fields, e.g. {outcome: 'refused', reason} of a refused send. */
  constructor(status, code, message, detail = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.detail = detail;
  }
}

export function getToken() {
  return token;
}

export function setToken(value) {
  token = value || null;
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** Call `listener()` whenever the server answers 401 (a token is needed or wrong). */
export function onAuthNeeded(listener) {
  authListeners.add(listener);
  return () => authListeners.delete(listener);
}

function headers(json, accept = 'application/json') {
  const result = { Accept: accept };
  if (json) result['Content-Type'] = 'application/json';
  if (token) result.Authorization = `Bearer ${token}`;
  return result;
}

async function errorOf(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  const error = body && typeof body === 'object' ? body.error : null;
  if (response.status === 401) authListeners.forEach((listener) => listener());
  const { code, message, ...detail } = error && typeof error === 'object' ? error : {};
  return new ApiError(
    response.status,
    code || `http_${response.status}`,
    message || `the server answered ${response.status} ${response.statusText}`.trim(),
    detail,
  );
}

/**
 * Call a JSON route: api('api/agents'), api(path, {method: 'POST', body: {...}}).
 * Paths are relative to the page, so the UI also works behind a path prefix.
 * Resolves with the parsed JSON (null for 204); rejects with ApiError.
 */
export async function api(path, { method = 'GET', body, signal } = {}) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      cache: 'no-store',
    });
  } catch (exc) {
    if (exc && exc.name === 'AbortError') throw exc;
    throw new ApiError(0, 'network', 'the server cannot be reached');
  }
  if (!response.ok) throw await errorOf(response);
  if (response.status === 204) return null;
  try {
    return await response.json();
  } catch {
    throw new ApiError(response.status, 'bad_response', 'the server sent a response that is not JSON');
  }
}

/** `api/agents/<name>/<rest>` with the name escaped. */
export function agentPath(name, rest = '') {
  return `api/agents/${encodeURIComponent(name)}${rest}`;
}

/** `api/channels/<key><rest>` with the key escaped (keys hold ':'). */
export function channelPath(key, rest = '') {
  return `api/channels/${encodeURIComponent(key)}${rest}`;
}

/** A query string from an object, leaving out empty values: {a: 1, b: null} → "?a=1". */
export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * Send a chat message and follow the streamed reply (protocol: POST
 * .../chat/stream, events item, delta, reset, done, error). The deltas since
 * the last reset add up to the done event's reply.
 *
 * handlers: {onItem(mailboxItemId), onDelta(text), onDone({reply, mailboxItemId, cancelled})}.
 * Resolves when the stream ends; rejects with ApiError (bad input answered
 * before the stream started, an `error` event, or a dropped connection).
 * A server without the streaming route gets the plain /chat call instead.
 */
export async function streamChat(name, body, handlers, signal) {
  let response;
  try {
    response = await fetch(agentPath(name, '/chat/stream'), {
      method: 'POST',
      headers: headers(true, 'text/event-stream'),
      body: JSON.stringify(body),
      signal,
      cache: 'no-store',
    });
  } catch (exc) {
    if (exc && exc.name === 'AbortError') throw exc;
    throw new ApiError(0, 'network', 'the server cannot be reached');
  }
  if (!response.ok) {
    const error = await errorOf(response);
    if (error.code === 'not_found' || error.code === 'method_not_allowed') {
      const result = await api(agentPath(name, '/chat'), { method: 'POST', body, signal });
      handlers.onItem?.(result.mailboxItemId);
      handlers.onDelta?.(result.reply);
      handlers.onDone?.({ reply: result.reply, mailboxItemId: result.mailboxItemId, cancelled: false });
      return;
    }
    throw error;
  }
  const type = response.headers.get('content-type') || '';
  if (!type.startsWith('text/event-stream')) {
    // A JSON answer (an older server): the whole reply at once.
    const result = await response.json();
    handlers.onItem?.(result.mailboxItemId);
    handlers.onDone?.({ reply: result.reply, mailboxItemId: result.mailboxItemId, cancelled: false });
    return;
  }
  let finished = false;
  for await (const frame of sseFrames(response.body)) {
    let data = null;
    try {
      data = frame.data ? JSON.parse(frame.data) : null;
    } catch {
      continue;
    }
    if (frame.event === 'item') handlers.onItem?.(data && data.mailboxItemId);
    else if (frame.event === 'delta') handlers.onDelta?.((data && data.text) || '');
    else if (frame.event === 'reset') handlers.onReset?.();
    else if (frame.event === 'done') {
      finished = true;
      handlers.onDone?.(data || {});
    } else if (frame.event === 'error') {
      const error = (data && data.error) || {};
      throw new ApiError(200, error.code || 'stream_error', error.message || 'the reply failed');
    }
  }
  if (!finished) throw new ApiError(0, 'stream_closed', 'the connection closed before the reply was complete');
}

/** Parse a text/event-stream body into {event, data} frames (WHATWG SSE field rules). */
export async function* sseFrames(stream) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let event = 'message';
  let data = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let newline;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        // A lone CR at the end may be the first half of CRLF: wait for more.
        if (buffer[newline] === '\r' && newline === buffer.length - 1) break;
        const line = buffer.slice(0, newline);
        const width = buffer.startsWith('\r\n', newline) ? 2 : 1;
        buffer = buffer.slice(newline + width);
        if (line === '') {
          if (data.length) yield { event, data: data.join('\n') };
          event = 'message';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
    }
    if (data.length) yield { event, data: data.join('\n') };
  } finally {
    reader.releaseLock();
  }
}
