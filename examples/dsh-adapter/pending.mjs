// What the real dsh loop is waiting on from the outside world.
//
// The adapter stands in for everything outside the loop: the model (scripted-llm.mjs), the tool
// bodies (tools.mjs), the hook processes (hooks.mjs) and the approval channel (session.mjs). Each
// of those, when dsh calls it, parks a *waiter* here and suspends dsh until a driver command
// settles it. That gives two things the adapter needs:
//
// - whether a command fits dsh's current state (is a model request pending? is this call's body
//   running?), which decides refusals without guessing from the log; and
// - when dsh is quiescent: every path it could take next is blocked on one of these waiters (or
//   the agent is idle), so the events appended so far are everything this command caused.
//
// A waiter whose dsh signal aborts (Agent.cancel) is withdrawn and rejected with the abort reason,
// as a killed process or a cancelled HTTP request would be.

/** One suspended call into the outside world. */
class Waiter {
  constructor(kind, key, info, signal, onSettled) {
    this.kind = kind
    this.key = key
    this.info = info
    const { promise, resolve, reject } = Promise.withResolvers()
    this.promise = promise
    this.settled = false
    const settle = (fn, value) => {
      if (this.settled) return
      this.settled = true
      signal?.removeEventListener('abort', onAbort)
      onSettled(this)
      fn(value)
    }
    const onAbort = () => settle(reject, signal.reason)
    this.resolve = (value) => settle(resolve, value)
    this.reject = (error) => settle(reject, error)
    if (signal?.aborted) {
      queueMicrotask(onAbort)
    } else {
      signal?.addEventListener('abort', onAbort, { once: true })
    }
  }
}

export class Pending {
  constructor() {
    /** @type {Waiter[]} in arrival order */
    this.waiters = []
    /** bumps whenever a waiter is added or settled; part of the quiescence check */
    this.version = 0
  }

  /**
   * Park one call and return the promise dsh awaits.
   * @param kind - 'model' | 'tool' | 'hook' | 'approval'
   * @param key - what identifies it within its kind (a call id for tools)
   * @param info - anything the settling command needs to know
   * @param signal - dsh's abort signal for this work, if any
   */
  wait(kind, key, info, signal) {
    const waiter = new Waiter(kind, key, info, signal, (done) => {
      const index = this.waiters.indexOf(done)
      if (index >= 0) this.waiters.splice(index, 1)
      this.version++
    })
    this.waiters.push(waiter)
    this.version++
    return waiter.promise
  }

  /** The oldest waiter of `kind` (and `key`, when given), or undefined. */
  find(kind, key) {
    return this.waiters.find((w) => w.kind === kind && (key === undefined || w.key === key))
  }

  get size() {
    return this.waiters.length
  }
}
