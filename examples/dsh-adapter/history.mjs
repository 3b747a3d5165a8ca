// The history dsh's next model request carries (capability `history`, loopspec HIST-1), as dsh
// itself computes it. The adapter derives nothing: it reports one of two arrays dsh made.
//
// - While a model request is pending, the messages that request carried, as they reached the
//   provider adapter (scripted-llm.mjs keeps them on the request's waiter): dsh built them with
//   `session.deriveMessages()` and passed them through the `llm/stream` middleware and the
//   runtime's replay-state filter, exactly as a real provider adapter receives them.
// - Otherwise (idle, a body or hook or approval running, after an abort), no request exists
//   yet: the next one is built from `session.deriveMessages()` when dsh gets there, so that is
//   called now. It is the same call `AgentLoop.buildRequest` makes, and dsh's own invariant
//   (`@deepseek-ai/dsh-agent-loop/invariant`) holds every request equal to it at dispatch.
//
// So after each command the driver learns what dsh sent, or what it would send if it asked the
// model now; conform compares that after every command, when dsh's next request may still be
// a few events away (a tool body still running).
//
// The protocol carries each message once: `kept` is how many of the messages reported last are
// still the same, `appended` the rest.

/** A message as plain JSON, detached from dsh's frozen objects. */
function plain(message) {
  return JSON.parse(JSON.stringify(message))
}

/**
 * Whether two messages are the same. dsh hands out the same deep-frozen message objects for as
 * long as a message stays in the history; a resumed session derives equal copies.
 */
function same(a, b) {
  return a === b || JSON.stringify(a) === JSON.stringify(b)
}

export class HistoryReport {
  constructor() {
    /** the messages reported so far, in order */
    this.reported = []
  }

  /** The change from the messages reported last to `messages`: {kept, appended}. */
  change(messages) {
    let kept = 0
    const common = Math.min(messages.length, this.reported.length)
    while (kept < common && same(messages[kept], this.reported[kept])) kept++
    this.reported = [...messages]
    return { kept, appended: messages.slice(kept).map(plain) }
  }

  /** No change: a crashed process sends nothing, and its durable log keeps its history. */
  unchanged() {
    return { kept: this.reported.length, appended: [] }
  }
}

/** The messages dsh's pending model request carries, or dsh's derivation for the next one. */
export function nextRequestMessages(runtime) {
  const request = runtime.pending.find('model')
  return request !== undefined ? request.info.messages : runtime.agent.session.deriveMessages()
}
