// Crash repair: the closers of an interrupted tail turn, read from the durable log alone
// (REC-1, REC-2).
//
// A crash may leave the last turn open. Before anything else is appended on reopen, each call
// the open step's reply shows but no result answers gets one synthetic error result, in
// transcript order: TOOL_OUTCOME_UNKNOWN (citing its tool/call) when its identity was
// recorded, because it may have run and must not be retried blindly; TOOL_NOT_STARTED
// otherwise. Then step/end if a step is open, then turn/end {interrupted}. Closers continue the
// seqs and take the last event's time. A balanced log gets nothing.

const OUTCOME_UNKNOWN_TEXT =
  "Error: the session stopped after this tool call was recorded and before its result was. " +
  "It may or may not have taken effect; check before repeating anything with side effects.";
const NOT_STARTED_TEXT =
  "Error: the session stopped before this tool call started. It had no effect and may be " +
  "issued again.";

// Scan the log: which turn and step are open, and which of the step's calls still wait.
function openTail(events) {
  let turn;
  let step;
  let pending = new Map(); // callId -> tool/call seq, or undefined when never recorded
  for (const event of events) {
    const { data } = event;
    switch (event.type) {
      case "turn/start":
        [turn, step, pending] = [data.turn, undefined, new Map()];
        break;
      case "turn/end":
        [turn, step, pending] = [undefined, undefined, new Map()];
        break;
      case "step/start":
        [step, pending] = [data.step, new Map()];
        break;
      case "step/end":
        [step, pending] = [undefined, new Map()];
        break;
      case "assistant/message":
        for (const block of data.message.content) {
          if (block.type === "tool-call") pending.set(block.id, undefined);
        }
        break;
      case "tool/call":
        if (pending.has(data.callId)) pending.set(data.callId, event.seq);
        break;
      case "tool/result":
        if (event.surfaceOp === "append") pending.delete(data.message.source.callId);
        break;
      default:
        break;
    }
  }
  return { turn, step, pending };
}

// Append the closers to `tx` (a transaction on the log being repaired).
export function repairTail(tx, events) {
  const { turn, step, pending } = openTail(events);
  if (turn === undefined) return;
  const time = events.length > 0 ? events.at(-1).time : 0;
  const add = (type, data, surface) => tx.add(type, data, surface, time);
  if (step !== undefined) {
    for (const [callId, callSeq] of pending) {
      const started = callSeq !== undefined;
      const message = {
        role: "user",
        content: [
          {
            type: "tool-result",
            toolCallId: callId,
            content: [{ type: "text", text: started ? OUTCOME_UNKNOWN_TEXT : NOT_STARTED_TEXT }],
            isError: true,
          },
        ],
        source: { kind: "tool", callId },
        id: `interrupted-tool-result-${callId}-${tx.nextSeq}`,
      };
      const error = started
        ? { name: "ToolOutcomeUnknownError", code: "TOOL_OUTCOME_UNKNOWN" }
        : { name: "ToolNotStartedError", code: "TOOL_NOT_STARTED" };
      const sources = started ? [callSeq] : undefined;
      add("tool/result", { turn, step, message, error }, { sources });
    }
    add("step/end", { turn, step });
  }
  add("turn/end", { turn, reason: { kind: "interrupted" } });
}
