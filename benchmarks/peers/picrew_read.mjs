// The read side of pi-crew's mailbox (baphuongna/pi-crew src/state/mailbox.ts,
// readMailbox and readDeliveryState), restated for node 20 in our own words: read
// the whole JSONL file, split it into lines, JSON.parse each one, keep the objects
// that have a message's fields, sort them by createdAt, and read delivery.json.
// Every read starts from the first byte again: nothing is kept between reads.
//
// argv[2]: a JSON job {file, delivery, reads}. Prints one JSON line:
// {"ms": [each read's milliseconds], "messages": n, "delivery": n} (the last read's counts).

import fs from "node:fs";

const job = JSON.parse(process.argv[2]);
const STATUSES = new Set(["queued", "delivered", "acknowledged"]);

function asMessage(raw) {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  for (const key of ["id", "runId", "from", "to", "body", "createdAt"]) {
    if (typeof raw[key] !== "string") return undefined;
  }
  if (raw.direction !== "inbox" || !STATUSES.has(raw.status)) return undefined;
  return {
    id: raw.id,
    runId: raw.runId,
    direction: raw.direction,
    from: raw.from,
    to: raw.to,
    body: raw.body,
    createdAt: raw.createdAt,
    status: raw.status,
    taskId: typeof raw.taskId === "string" ? raw.taskId : undefined,
  };
}

function readMailbox() {
  const messages = [];
  for (const line of fs.readFileSync(job.file, "utf-8").split(/\r?\n/).filter(Boolean)) {
    try {
      const message = asMessage(JSON.parse(line));
      if (message) messages.push(message);
    } catch {
      // a line that does not parse is skipped (pi-crew reports it on validate)
    }
  }
  return messages.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

function readDelivery() {
  try {
    const raw = JSON.parse(fs.readFileSync(job.delivery, "utf-8"));
    const messages = {};
    for (const [id, status] of Object.entries(raw.messages ?? {})) {
      if (STATUSES.has(status)) messages[id] = status;
    }
    return messages;
  } catch {
    return {};
  }
}

const ms = [];
let counts = { messages: 0, delivery: 0 };
for (let n = 0; n < job.reads; n += 1) {
  const began = process.hrtime.bigint();
  const messages = readMailbox();
  const delivery = readDelivery();
  counts = { messages: messages.length, delivery: Object.keys(delivery).length };
  ms.push(Number(process.hrtime.bigint() - began) / 1e6);
}
process.stdout.write(`${JSON.stringify({ ms, ...counts })}\n`);
