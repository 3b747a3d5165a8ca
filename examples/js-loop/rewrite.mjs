// The rewrite phase: PreToolUse hooks decide, and may replace a call's input, before anything
// of the model's reply is logged (RW-3).
//
// Each matching hook answers once per call, in model order of calls then configured order of
// hooks (HOOK-4). When the last one has answered, the reply is committed together with one
// tool/call per call, all carrying the *effective* arguments, so history, audit and
// presentation agree at every prefix of the log (RW-1).

import { callInputProblem, inputProblem, PRE_TOOL_USE } from "./config.mjs";
import { pythonDumps } from "./json.mjs";
import { assistantMessage, hookAudit, toolCall } from "./log.mjs";

// Strictness, for merging several hooks' decisions: deny > ask > allow > pass (HOOK-2).
const RANK = { pass: 0, allow: 1, ask: 2, deny: 3 };

export const toolCalls = (reply) => reply.blocks.filter((b) => b.type === "tool-call");

// The hooks still to answer, in the order they must answer. Calls whose own arguments are
// invalid are never shown to a hook: they fail without policy.
export function pendingHooks(calls, config) {
  return calls.flatMap((call, callIndex) =>
    callInputProblem(call, config) === undefined
      ? config.hooksFor(PRE_TOOL_USE, call.name).map((hook) => ({ callIndex, hook }))
      : [],
  );
}

const suppliedInput = (verdict) =>
  verdict.decision === "allow" || verdict.decision === "ask" ? verdict.updatedInput : undefined;

// Audit one answer (hook/invoked + hook/result, both naming the call) and return the vote.
export function recordAnswer(tx, turn, call, pending, { verdict, audit }) {
  hookAudit(tx, turn, pending.hook, call.id, {
    decision: audit?.decision ?? verdict.decision,
    durationMs: audit === undefined ? 0 : audit.durationMs,
    exitCode: audit?.exitCode,
    // Without an audit of its own, the hook's reason is the best summary there is.
    stderrSummary: audit === undefined ? verdict.reason : audit.stderrSummary,
    updatedInput: suppliedInput(verdict),
  });
  return { callIndex: pending.callIndex, handlerId: pending.hook.handlerId, verdict };
}

function reasons(votes, decision) {
  const texts = votes.filter((v) => v.verdict.decision === decision && v.verdict.reason);
  return texts.length > 0 ? texts.map((v) => v.verdict.reason).join("; ") : undefined;
}

// One call's effective arguments, sidecar and pre-execute decision, from its hooks' votes
// (already in configured order).
export function resolveCall(call, votes, config) {
  const keep = (decision, reason) => ({ arguments: call.arguments, decision, reason });
  const invalid = callInputProblem(call, config);
  if (invalid !== undefined) return keep("invalid", invalid);

  const merged = Math.max(RANK.pass, ...votes.map((v) => RANK[v.verdict.decision]));
  // A deny discards every rewrite (HOOK-3).
  if (merged === RANK.deny) return keep("deny", reasons(votes, "deny") ?? "denied");
  const decision = merged === RANK.ask ? "ask" : "allow";
  const why = decision === "ask" ? reasons(votes, "ask") : undefined;

  // The last hook in configured order that supplied an input wins; a passthrough erases nothing.
  const suppliers = votes.filter((v) => suppliedInput(v.verdict) != null);
  if (suppliers.length === 0) return keep(decision, why);
  const winner = suppliers.at(-1);
  const proposed = winner.verdict.updatedInput;
  // Fail closed: an unacceptable rewrite denies the call and keeps the original (HOOK-6).
  const problem = inputProblem(config.tool(call.name), proposed);
  if (problem !== undefined) {
    return keep("deny", `hook ${winner.handlerId} rewrote the input of ${call.name}: ${problem}`);
  }
  return {
    arguments: pythonDumps(proposed),
    // Recorded even when the input equals the original: a hook decided it (RW-2).
    sidecar: { originalArguments: call.arguments, handlerIds: suppliers.map((v) => v.handlerId) },
    decision,
    reason: why,
  };
}

// Commit the reply and every call's sealed identity as one unit; return the batch's slots.
export function commitReplyWithCalls(tx, turn, step, config, reply, votes) {
  const calls = toolCalls(reply);
  const resolved = new Map(
    calls.map((call, index) => [
      call.id,
      resolveCall(call, votes.filter((v) => v.callIndex === index), config),
    ]),
  );
  const content = reply.blocks.map((block) =>
    block.type === "tool-call" ? { ...block, arguments: resolved.get(block.id).arguments } : block,
  );
  assistantMessage(tx, turn, step, config, content);
  return calls.map((call) => {
    const resolution = resolved.get(call.id);
    const effective = { ...call, arguments: resolution.arguments };
    const callSeq = toolCall(tx, turn, step, effective, resolution.sidecar);
    return {
      callId: call.id,
      name: call.name,
      arguments: resolution.arguments,
      callSeq,
      decision: resolution.decision,
      reason: resolution.reason,
      concurrencySafe: config.tool(call.name)?.concurrencySafe === true,
      status: "waiting",
    };
  });
}
