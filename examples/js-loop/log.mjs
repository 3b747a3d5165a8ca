// The session log: the only state that survives a crash, and the wire shapes written to it.
//
// Every accepted command builds one Transaction; `commit()` appends its events to the durable
// log in one step, so a crash can only cut the log between commits (LOG-8). Events are plain
// wire objects `{type, seq, time, data, surfaceOp?, sourceEventSeqs?}` from the start: there is
// no second representation to keep in sync.

import { randomUUID } from "node:crypto";

export class SessionLog {
  constructor() {
    this.events = [];
  }

  get length() {
    return this.events.length;
  }

  begin() {
    return new Transaction(this);
  }
}

export class Transaction {
  constructor(log) {
    this.log = log;
    this.events = [];
    this.executed = []; // bodies this command started: [{callId, arguments}]
  }

  get nextSeq() {
    return this.log.length + this.events.length;
  }

  // Append one event; `surface` is given for the three model-visible types. Returns its seq.
  add(type, data, surface, time = Date.now()) {
    const seq = this.nextSeq;
    const event = { type, seq, time, data };
    if (surface !== undefined) {
      event.surfaceOp = "append";
      if (surface.sources !== undefined) event.sourceEventSeqs = surface.sources;
    }
    this.events.push(event);
    return seq;
  }

  // The one atomic write of this command. Returns the commit sizes the protocol reports.
  commit() {
    if (this.events.length === 0) return [];
    this.log.events.push(...this.events);
    return [this.events.length];
  }
}

// Message ids are opaque to the conformance comparison, so real UUIDs are used.
export function messageId() {
  return `msg_${randomUUID()}`;
}

// ---------------------------------------------------------------------------------------------
// Writers for each event type, so every caller produces the same shape.

export const text = (value) => ({ type: "text", text: value });

export function turnStart(tx, turn) {
  tx.add("turn/start", { turn });
}

export function turnEnd(tx, turn, reason) {
  tx.add("turn/end", { turn, reason });
}

export const abortedReason = (cause) => ({ kind: "aborted", reason: { kind: cause } });

export function stepEnd(tx, turn, step) {
  tx.add("step/end", { turn, step });
}

// A step opens with its queued messages in FIFO order: user input and tool/hook contexts (ADJ-4).
export function stepStart(tx, turn, step, queued) {
  tx.add("step/start", { turn, step });
  for (const message of queued) {
    const source =
      message.plugin === undefined ? { kind: "user" } : { kind: "plugin", plugin: message.plugin };
    const data = { role: "user", content: [text(message.text)], source, id: messageId() };
    tx.add("user/message", data, {});
  }
}

export function assistantMessage(tx, turn, step, config, content, { interrupted = false } = {}) {
  const message = {
    role: "assistant",
    content,
    source: { kind: "model", provider: config.provider, model: config.model },
    id: messageId(),
  };
  const data = { turn, step, message };
  if (interrupted) data.interrupted = true;
  tx.add("assistant/message", data, {});
}

export function toolCall(tx, turn, step, call, sidecar) {
  const data = { turn, step, callId: call.id, name: call.name, arguments: call.arguments };
  if (sidecar !== undefined) data.rewrite = sidecar;
  return tx.add("tool/call", data);
}

// `result`: {content: [block], isError, error?, meta?}; `callSeq` is the cited tool/call.
export function toolResult(tx, turn, step, callId, result, callSeq, id = messageId()) {
  const message = {
    role: "user",
    content: [
      { type: "tool-result", toolCallId: callId, content: result.content, isError: result.isError },
    ],
    source: { kind: "tool", callId },
    id,
  };
  const data = { turn, step, message };
  if (result.error !== undefined) data.error = result.error;
  if (result.meta !== undefined && result.meta !== null) data.meta = result.meta;
  tx.add("tool/result", data, { sources: callSeq === undefined ? undefined : [callSeq] });
}

// The audit pair of one hook run. `answer`: {decision, durationMs, exitCode?, stderrSummary?,
// updatedInput?}.
export function hookAudit(tx, turn, hook, callId, answer) {
  tx.add("hook/invoked", {
    turn,
    point: hook.point,
    dialect: hook.dialect,
    handlerId: hook.handlerId,
    matcher: hook.matcher,
    callId,
  });
  const data = {
    turn,
    point: hook.point,
    handlerId: hook.handlerId,
    decision: answer.decision,
    durationMs: answer.durationMs,
  };
  for (const key of ["exitCode", "stderrSummary"]) {
    if (answer[key] !== undefined && answer[key] !== null) data[key] = answer[key];
  }
  data.callId = callId;
  if (answer.updatedInput !== undefined && answer.updatedInput !== null) {
    data.updatedInput = answer.updatedInput;
  }
  tx.add("hook/result", data);
}

export function approvalAsked(tx, id, slot) {
  const data = { id, toolName: slot.name, callId: slot.callId };
  if (slot.reason !== undefined) data.reason = slot.reason;
  data.arguments = slot.arguments;
  tx.add("approval/asked", data);
}

export function approvalDecided(tx, id, outcome) {
  tx.add("approval/decided", { id, outcome });
}
