// The batch: the pre-execute gate, approvals, parallel dispatch, model-order commits, and the
// abort drain.
//
// Every command that changes a slot ends with `advance`, which (1) walks the gate in model
// order, (2) after an abort fails everything that never started, and (3) commits the contiguous
// prefix of ready results, so results land in the order the model wrote the calls whatever
// order the bodies finished in (ORD-3). The batch is `done` when every result is committed.
//
// Slot lifecycle, only ever forward: waiting -> asking -> running -> ready -> committed.

import { POST_TOOL_USE } from "./config.mjs";
import { approvalAsked, approvalDecided, hookAudit, text, toolResult } from "./log.mjs";

// A failure the model reads: one text block "Error: <message>", with {name, code} when known.
const errorResult = (message, error) => ({
  content: [text(`Error: ${message}`)],
  isError: true,
  error,
});
const errorInfo = (name, code) => ({ name, code });
const INVALID_INPUT = errorInfo("InvalidToolInputError", "INVALID_TOOL_INPUT");
const UNKNOWN_TOOL = errorInfo("UnknownToolError", "UNKNOWN_TOOL");

const APPROVAL_DENIALS = {
  rejected: (name) => `the user rejected tool ${name}`,
  cancelled: (name) => `the approval request for tool ${name} was cancelled`,
  unavailable: (name) => `tool ${name} needs approval but no approval channel is available`,
};

export class Batch {
  constructor(turn, step, slots) {
    this.turn = turn;
    this.step = step;
    this.slots = slots;
    this.gate = 0; // the next call to pass the pre-execute gate
    this.cursor = 0; // the next call whose result is committed
    this.aborting = undefined; // the abort cause, once an abort arrived
  }

  get done() {
    return this.cursor === this.slots.length;
  }

  pendingApproval() {
    const slot = this.slots[this.gate];
    return slot?.status === "asking" ? slot : undefined;
  }

  runningSlot(callId) {
    return this.slots.find((s) => s.callId === callId && s.status === "running");
  }

  // Move as far as possible without another command. `inbox` receives the contexts of the
  // results committed now; they wait for the next step (ADJ-1, ADJ-4).
  advance(tx, config, inbox) {
    this.#passGate(tx, config);
    if (this.aborting !== undefined) this.#abortUnstarted(tx);
    this.#commitReady(tx, inbox);
  }

  // SCHED-1: an exclusive call starts only when no earlier call runs; a concurrency-safe call
  // when no earlier exclusive call runs and fewer than maxParallel earlier calls run.
  #mayStart(index, config) {
    const earlier = this.slots.slice(0, index).filter((s) => s.status === "running");
    if (!this.slots[index].concurrencySafe) return earlier.length === 0;
    return earlier.every((s) => s.concurrencySafe) && earlier.length < config.maxParallel;
  }

  #passGate(tx, config) {
    while (this.gate < this.slots.length && this.aborting === undefined) {
      const slot = this.slots[this.gate];
      if (slot.status === "asking") return;
      // Refused calls need no slot to run in: they fail at once, in order.
      if (slot.decision === "invalid") {
        ready(slot, errorResult(slot.reason, INVALID_INPUT));
      } else if (slot.decision === "deny") {
        ready(slot, errorResult(slot.reason));
      } else if (!this.#mayStart(this.gate, config)) {
        return;
      } else if (slot.decision === "ask") {
        // The user is shown exactly the recorded, effective arguments (RW-4).
        slot.approvalId = `approval-${slot.callId}`;
        approvalAsked(tx, slot.approvalId, slot);
        slot.status = "asking";
        return;
      } else {
        start(tx, config, slot);
      }
      this.gate += 1;
    }
  }

  // DEC-2: the answer to the pending approval; allowed-once runs exactly what was shown.
  answerApproval(tx, config, outcome) {
    const slot = this.slots[this.gate];
    approvalDecided(tx, slot.approvalId, outcome);
    if (outcome === "allowed-once") start(tx, config, slot);
    else ready(slot, errorResult(APPROVAL_DENIALS[outcome](slot.name)));
    this.gate += 1;
  }

  // ABORT-1: nothing starts after an abort; a pending approval is cancelled, and every call
  // that never started still gets a result.
  #abortUnstarted(tx) {
    for (const slot of this.slots.slice(this.gate)) {
      if (slot.status === "asking") approvalDecided(tx, slot.approvalId, "cancelled");
      if (slot.status === "waiting" || slot.status === "asking") {
        const info = errorInfo("AbortError", "ABORTED_BEFORE_DISPATCH");
        ready(slot, errorResult("tool call aborted before dispatch", info));
      }
    }
    this.gate = this.slots.length;
  }

  // A running body settled: its result, after abort and PostToolUse verdicts (DEC-3).
  // `judged` pairs each matching PostToolUse hook with its verdict, in configured order.
  finish(slot, outcome, judged) {
    let result;
    if (outcome.ok && this.aborting !== undefined) {
      // A success that lands after an abort is not reported as one.
      result = errorResult("tool call aborted", errorInfo("AbortError", "ABORTED"));
    } else if (outcome.ok) {
      result = { content: [text(outcome.text)], isError: false, meta: outcome.meta };
      // An empty context is no context (ADJ-4), the body's own as a hook's.
      result.contexts = outcome.contexts.filter((context) => context !== "");
    } else {
      const { code, errorName } = outcome;
      const info = code === undefined ? undefined : errorInfo(errorName, code);
      result = errorResult(outcome.message, info);
    }
    const verdicts = judged.map((j) => j.verdict);
    // An empty context is no context (ADJ-4).
    const hookContexts = verdicts
      .filter((v) => v.decision === "context" && v.text !== "")
      .map((v) => v.text);
    const blocking = verdicts.filter((v) => v.decision === "block");
    if (blocking.length > 0) {
      // A block replaces the content and drops the body's own contexts; hook contexts stay.
      // An empty reason is no reason: a provider refuses an empty text block (DEC-3).
      const reasons = blocking.map((v) => v.reason).filter((reason) => reason !== "");
      const shown = reasons.length > 0 ? reasons : ["blocked by PostToolUse hook"];
      result = { content: shown.map(text), isError: true };
      result.contexts = hookContexts;
    } else {
      result.contexts = [...(result.contexts ?? []), ...hookContexts];
    }
    result.post = judged;
    ready(slot, result);
  }

  #commitReady(tx, inbox) {
    while (this.cursor < this.slots.length && this.slots[this.cursor].status === "ready") {
      const slot = this.slots[this.cursor];
      const { result } = slot;
      // HOOK-5: the PostToolUse audit precedes the result it judged.
      for (const { hook, verdict } of result.post ?? []) {
        hookAudit(tx, this.turn, hook, slot.callId, {
          decision: verdict.audit?.decision ?? POST_TAG[verdict.decision],
          durationMs: verdict.audit === undefined ? 0 : verdict.audit.durationMs,
          exitCode: verdict.audit?.exitCode,
          stderrSummary: verdict.audit === undefined ? verdict.reason : verdict.audit.stderrSummary,
        });
      }
      toolResult(tx, this.turn, this.step, slot.callId, result, slot.callSeq);
      for (const context of result.contexts ?? []) {
        inbox.push({ text: context, plugin: "tool-context" });
      }
      slot.status = "committed";
      this.cursor += 1;
    }
  }
}

// The decision word a PostToolUse verdict is audited with (a context is an "allow").
const POST_TAG = { pass: "pass", context: "allow", block: "block" };

export function postHooks(config, slot) {
  return config.hooksFor(POST_TOOL_USE, slot.name);
}

function ready(slot, result) {
  slot.status = "ready";
  slot.result = result;
}

// Dispatch a body, or fail at once when no such tool is registered.
function start(tx, config, slot) {
  if (config.tool(slot.name) === undefined) {
    ready(slot, errorResult(`unknown tool ${slot.name}`, UNKNOWN_TOOL));
    return;
  }
  tx.executed.push({ callId: slot.callId, arguments: slot.arguments });
  slot.status = "running";
}
