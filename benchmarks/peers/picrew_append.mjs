// The peer of benchmarks/filebox.py: pi-crew's way of appending a mailbox message,
// restated for node 20 (pi-crew's own TypeScript needs node 22). Written from a
// reading of baphuongna/pi-crew src/state/mailbox.ts (appendMailboxMessage); none
// of its code is copied. What one append does there, and so here:
//
//   1. make sure the mailbox folder and its files exist (mkdir -p, a symbolic-link
//      check and a realpath containment check of the folder, create inbox.jsonl,
//      outbox.jsonl and delivery.json when missing);
//   2. append the message as one JSON line with fs.appendFileSync: no lock, no fsync;
//   3. read delivery.json, parse it (a file that does not parse reads as empty),
//      set this message's status, and write the whole file back with
//      fs.writeFileSync (truncate, then write; no lock, no temp file, no fsync).
//
// pi-crew also passes every record through its secret redaction; that is left out,
// which only makes this peer faster.
//
// Protocol (shared with filebox_writers.py), a job being the JSON
//   {root, run_id, writer, count, acks, seed, body_chars}:
// `node picrew_append.mjs serve` prints "ready", then for each job line on stdin
// prints "set", waits for a "go" line, appends `count` messages, prints "done".
// `node picrew_append.mjs crash '<job>'` prints "ready" and appends until killed.
// After each append returns, the message id goes to the `acks` file (when given):
// that append is acknowledged.

import fs from "node:fs";
import path from "node:path";

let job = null;
let stateRoot = "";
let mailbox = "";

function setUp(given) {
  job = given;
  stateRoot = path.join(job.root, job.run_id);
  return path.join(stateRoot, "mailbox");
}

function ensureMailbox() {
  fs.mkdirSync(mailbox, { recursive: true });
  if (fs.lstatSync(mailbox).isSymbolicLink()) throw new Error(`mailbox is a link: ${mailbox}`);
  const real = fs.realpathSync(mailbox);
  if (!real.startsWith(fs.realpathSync(stateRoot) + path.sep)) {
    throw new Error(`mailbox escapes its run: ${real}`);
  }
  for (const name of ["inbox.jsonl", "outbox.jsonl"]) {
    const file = path.join(mailbox, name);
    if (!fs.existsSync(file)) fs.writeFileSync(file, "", "utf-8");
  }
  const delivery = path.join(mailbox, "delivery.json");
  if (!fs.existsSync(delivery)) {
    const empty = { messages: {}, updatedAt: new Date().toISOString() };
    fs.writeFileSync(delivery, `${JSON.stringify(empty, null, 2)}\n`, "utf-8");
  }
}

const STATUSES = new Set(["queued", "delivered", "acknowledged"]);

function readDelivery() {
  try {
    const raw = JSON.parse(fs.readFileSync(path.join(mailbox, "delivery.json"), "utf-8"));
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new Error("not an object");
    const messages = {};
    const given = raw.messages && typeof raw.messages === "object" ? raw.messages : {};
    for (const [id, status] of Object.entries(given)) if (STATUSES.has(status)) messages[id] = status;
    return { messages, updatedAt: typeof raw.updatedAt === "string" ? raw.updatedAt : "" };
  } catch {
    return { messages: {}, updatedAt: new Date().toISOString() };
  }
}

function appendMessage(from, body) {
  ensureMailbox();
  const createdAt = new Date().toISOString();
  const message = {
    id: `msg_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`,
    runId: job.run_id,
    direction: "inbox",
    from,
    to: "worker",
    body,
    createdAt,
    status: "queued",
  };
  fs.appendFileSync(path.join(mailbox, "inbox.jsonl"), `${JSON.stringify(message)}\n`, "utf-8");
  const delivery = readDelivery();
  delivery.messages[message.id] = message.status;
  delivery.updatedAt = createdAt;
  ensureMailbox();
  const text = `${JSON.stringify(delivery, null, 2)}\n`;
  fs.writeFileSync(path.join(mailbox, "delivery.json"), text, "utf-8");
  return message;
}

// A small seeded generator (mulberry32), so a crash loop's bodies are repeatable.
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PAD = "ab€é cd fé€ ";

function padding(chars) {
  return PAD.repeat(Math.ceil(chars / PAD.length)).slice(0, chars);
}

// The crash loop's body sizes, as filebox_writers.crash_body_chars draws them.
function crashBodyChars(next) {
  const roll = next();
  if (roll < 0.3) return 80 + Math.floor(next() * 320);
  if (roll < 0.5) return 2000 + Math.floor(next() * 6000);
  return 20000 + Math.floor(next() * 45000);
}

// Lines from stdin, read synchronously (the appends are synchronous too).
let pending = "";
function readLine() {
  const buffer = Buffer.alloc(4096);
  while (!pending.includes("\n")) {
    const read = fs.readSync(0, buffer, 0, buffer.length, null);
    if (read === 0) return null;
    pending += buffer.toString("utf-8", 0, read);
  }
  const cut = pending.indexOf("\n");
  const line = pending.slice(0, cut);
  pending = pending.slice(cut + 1);
  return line;
}

function run(job, crash, go) {
  mailbox = setUp(job);
  ensureMailbox();
  const acks = job.acks ? fs.openSync(job.acks, "a") : null;
  const next = random(job.seed);
  go();
  for (let seq = 0; seq < job.count; seq += 1) {
    const chars = crash ? crashBodyChars(next) : job.body_chars;
    const message = appendMessage(`w${job.writer}`, `${seq} ${padding(chars)}`);
    if (acks !== null) fs.writeSync(acks, `${message.id}\n`);
  }
  if (acks !== null) fs.closeSync(acks);
}

const say = (word) => fs.writeSync(1, `${word}\n`);

if (process.argv[2] === "crash") {
  run(JSON.parse(process.argv[3]), true, () => say("ready"));
} else {
  say("ready");
  for (let line = readLine(); line !== null; line = readLine()) {
    run(JSON.parse(line), false, () => {
      say("set");
      readLine();
    });
    say("done");
  }
}
