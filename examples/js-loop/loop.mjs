// The tool-call loop: phases, the transition table, and one handler per legal pair.
//
// Phases: Idle, AwaitingModel (a step's model request is in flight), Rewriting (PreToolUse
// hooks decide on the reply before any of it is logged), Dispatching (the batch runs), Crashed.
// A (phase, command) pair missing from TABLE is refused with MODEL-1. Handlers decide every
// other refusal before they change anything, so a refused command changes nothing (MODEL-3).

import { Batch, postHooks } from "./dispatch.mjs";
import { isBlank, pythonRepr } from "./json.mjs";
import {
  abortedReason,
  assistantMessage,
  SessionLog,
  stepEnd,
  stepStart,
  turnEnd,
  turnStart,
} from "./log.mjs";
import { History } from "./history.mjs";
import { Presenter } from "./present.mjs";
import { repairTail } from "./repair.mjs";
import { commitReplyWithCalls, pendingHooks, recordAnswer, toolCalls } from "./rewrite.mjs";

export class Refusal extends Error {
  constructor(rule, message) {
    super(message);
    this.rule = rule;
  }
}

const IDLE = Object.freeze({ name: "Idle" });
const CRASHED = Object.freeze({ name: "Crashed" });
const awaitingModel = (turn, step) => ({ name: "AwaitingModel", turn, step });

export class Session {
  constructor(config) {
    this.config = config;
    this.log = new SessionLog(); // durable: survives Crash
    this.ui = new Presenter(); // the client watching the log: shown what each commit adds
    this.history = new History(); // what the next model request would carry
    // Volatile: lost on Crash.
    this.phase = IDLE;
    this.inbox = []; // messages waiting for the next step boundary: {text, plugin?}
    this.nextTurn = 1;
  }

  // Apply one command: {accepted: true, events, commits, executed, presented, history} or
  // {accepted: false, rule, message}.
  apply(command) {
    const handler = TABLE[this.phase.name][command.kind];
    const tx = this.log.begin();
    try {
      if (handler === undefined) {
        const what = `${command.kind} is not accepted in phase ${this.phase.name}`;
        throw new Refusal("MODEL-1", what);
      }
      handler.call(this, tx, command);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      const message = `${command.kind} in phase ${this.phase.name}: ${error.message}`;
      return { accepted: false, rule: error.rule, message };
    }
    const commits = tx.commit();
    const presented = this.ui.show(tx.events);
    this.history.feed(tx.events);
    const history = this.history.change();
    const { events, executed } = tx;
    return { accepted: true, events, commits, executed, presented, history };
  }

  // -- the user ---------------------------------------------------------------------------------

  startTurn(tx, { text }) {
    const turn = this.nextTurn;
    turnStart(tx, turn);
    // Messages parked by an earlier turn (contexts after an abort, say) come first.
    stepStart(tx, turn, 1, [...this.takeInbox(), { text }]);
    this.phase = awaitingModel(turn, 1);
    this.nextTurn = turn + 1;
  }

  // During a turn, input waits for the next step: nothing may land between a reply's calls and
  // their results (ADJ-1).
  queueInput(tx, { text }) {
    this.inbox.push({ text });
  }

  takeInbox() {
    const queued = this.inbox;
    this.inbox = [];
    return queued;
  }

  // -- the model --------------------------------------------------------------------------------

  modelReplies(tx, reply) {
    const { turn, step } = this.phase;
    const calls = toolCalls(reply);
    if (new Set(calls.map((c) => c.id)).size !== calls.length) {
      throw new Refusal("EXE-1", "tool call ids repeat within one reply");
    }
    if (reply.finish === "cancelled") {
      this.keepDelivered(tx, reply);
      this.endTurn(tx, { kind: "aborted", reason: { kind: "user" } });
      return;
    }
    if (reply.finish === "max-tokens") {
      // A truncated reply's calls may be cut short: they are dropped and nothing runs (STEP-4).
      const said = reply.blocks.filter((b) => b.type !== "tool-call");
      assistantMessage(tx, turn, step, this.config, said);
      this.endTurn(tx, { kind: "max-tokens" });
      return;
    }
    if (calls.length === 0) {
      assistantMessage(tx, turn, step, this.config, reply.blocks);
      this.nextStepOrEnd(tx);
      return;
    }
    const queue = pendingHooks(calls, this.config);
    if (queue.length > 0) {
      // Nothing is logged until the last hook has answered (RW-3).
      this.phase = { name: "Rewriting", turn, step, reply, queue, votes: [] };
      return;
    }
    this.commitBatch(tx, reply, []);
  }

  // A completed reply without calls ends the turn, unless input is queued: then it is the
  // next step's (STEP-4).
  nextStepOrEnd(tx) {
    const { turn, step } = this.phase;
    if (this.inbox.length === 0) {
      this.endTurn(tx, { kind: "completed" });
      return;
    }
    stepEnd(tx, turn, step);
    stepStart(tx, turn, step + 1, this.takeInbox());
    this.phase = awaitingModel(turn, step + 1);
  }

  modelFails(tx, { message, code }) {
    this.endTurn(tx, { kind: "error", error: { message, code } });
  }

  // An interrupted reply keeps its delivered non-blank text and reasoning, never a call (ABORT-2).
  keepDelivered(tx, reply) {
    const kept = reply.blocks.filter((b) => b.type !== "tool-call" && !isBlank(b.text));
    if (kept.length > 0) {
      const { turn, step } = this.phase;
      assistantMessage(tx, turn, step, this.config, kept, { interrupted: true });
    }
  }

  // -- hooks and approvals ----------------------------------------------------------------------

  hookAnswers(tx, answer) {
    const phase = this.phase;
    const [pending, ...rest] = phase.queue;
    const call = toolCalls(phase.reply)[pending.callIndex];
    phase.votes.push(recordAnswer(tx, phase.turn, call, pending, answer));
    phase.queue = rest;
    if (rest.length === 0) this.commitBatch(tx, phase.reply, phase.votes);
  }

  // The reply, every call's identity and the batch's first moves: one commit (LOG-8).
  commitBatch(tx, reply, votes) {
    const { turn, step } = this.phase;
    const slots = commitReplyWithCalls(tx, turn, step, this.config, reply, votes);
    this.phase = { name: "Dispatching", turn, step, batch: new Batch(turn, step, slots) };
    this.advance(tx);
  }

  approvalAnswers(tx, { outcome }) {
    const { batch } = this.phase;
    if (batch.pendingApproval() === undefined) {
      throw new Refusal("DEC-2", "no approval request is pending");
    }
    batch.answerApproval(tx, this.config, outcome);
    this.advance(tx);
  }

  // -- tools ------------------------------------------------------------------------------------

  toolFinishes(tx, { callId, outcome, post }) {
    const { batch } = this.phase;
    const slot = batch.runningSlot(callId);
    if (slot === undefined) {
      throw new Refusal("EXE-4", `no running call ${pythonRepr(callId)} in this step`);
    }
    const hooks = postHooks(this.config, slot);
    if (hooks.length !== post.length) {
      const what = `${hooks.length} PostToolUse hook(s) match, ${post.length} verdict(s) given`;
      throw new Refusal("HOOK-5", what);
    }
    batch.finish(slot, outcome, hooks.map((hook, i) => ({ hook, verdict: post[i] })));
    this.advance(tx);
  }

  // Move the batch; when its last result is in, end the step, then the turn (after an abort)
  // or open the next step with whatever the batch queued.
  advance(tx) {
    const { batch } = this.phase;
    batch.advance(tx, this.config, this.inbox);
    if (!batch.done) return;
    if (batch.aborting !== undefined) {
      // Contexts stay parked and open the next turn's first step.
      this.endTurn(tx, abortedReason(batch.aborting));
      return;
    }
    stepEnd(tx, batch.turn, batch.step);
    stepStart(tx, batch.turn, batch.step + 1, this.takeInbox());
    this.phase = awaitingModel(batch.turn, batch.step + 1);
  }

  // -- abort, crash, recovery -------------------------------------------------------------------

  abortBeforeReply(tx, { cause }) {
    this.endTurn(tx, abortedReason(cause));
  }

  abortRewriting(tx, { cause }) {
    this.keepDelivered(tx, this.phase.reply);
    this.endTurn(tx, abortedReason(cause));
  }

  // ABORT-1: no new starts; running calls drain; the rest fail at once.
  abortBatch(tx, { cause }) {
    const { batch } = this.phase;
    if (batch.aborting !== undefined) throw new Refusal("ABORT-1", "the batch is already aborting");
    batch.aborting = cause;
    this.advance(tx);
  }

  // Everything but the committed log is gone.
  crash() {
    this.phase = CRASHED;
    this.inbox = [];
    this.nextTurn = undefined;
  }

  // Reopen from the durable log alone: close its open tail turn, if any.
  recover(tx) {
    // A client reattaching learns the calls from the durable log; it is shown only what's new.
    this.ui = new Presenter();
    this.ui.remember(this.log.events);
    this.history = History.reopened(this.log.events, this.history.reported);
    repairTail(tx, this.log.events);
    const turns = this.log.events.filter((e) => e.type === "turn/start").map((e) => e.data.turn);
    this.nextTurn = Math.max(0, ...turns) + 1;
    this.phase = IDLE;
  }

  // Close the open step and the turn; the loop is idle again.
  endTurn(tx, reason) {
    const { turn, step } = this.phase;
    stepEnd(tx, turn, step);
    turnEnd(tx, turn, reason);
    this.phase = IDLE;
  }
}

// Which command each phase accepts, and who handles it. Everything else: MODEL-1.
const TABLE = {
  Idle: { SubmitUser: Session.prototype.startTurn, Crash: Session.prototype.crash },
  AwaitingModel: {
    SubmitUser: Session.prototype.queueInput,
    ModelReplies: Session.prototype.modelReplies,
    ModelFails: Session.prototype.modelFails,
    Abort: Session.prototype.abortBeforeReply,
    Crash: Session.prototype.crash,
  },
  Rewriting: {
    SubmitUser: Session.prototype.queueInput,
    HookAnswers: Session.prototype.hookAnswers,
    Abort: Session.prototype.abortRewriting,
    Crash: Session.prototype.crash,
  },
  Dispatching: {
    SubmitUser: Session.prototype.queueInput,
    ApprovalAnswers: Session.prototype.approvalAnswers,
    ToolFinishes: Session.prototype.toolFinishes,
    Abort: Session.prototype.abortBatch,
    Crash: Session.prototype.crash,
  },
  Crashed: { Recover: Session.prototype.recover },
};
