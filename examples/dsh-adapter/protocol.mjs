// The loopspec driver protocol (properties/conformance/driver_protocol.py): JSON lines on stdin/stdout, one
// answer line per message. Only this module touches stdout; diagnostics go to stderr.
import { createInterface } from 'node:readline'

export const PROTOCOL_VERSION = 1

/** A command that does not fit dsh's current state; nothing was changed. */
export class Refusal extends Error {
  constructor(rule, message) {
    super(message)
    this.rule = rule
  }
}

/** Call `handle(message)` for each JSON line of `input`, one at a time, in order. */
export async function serve(input, handle) {
  const lines = createInterface({ input, crlfDelay: Infinity })
  for await (const line of lines) {
    if (line.trim() === '') continue
    let message
    try {
      message = JSON.parse(line)
    } catch (error) {
      process.stderr.write(`[dsh-adapter] not JSON, ignored: ${error.message}\n`)
      continue
    }
    const done = await handle(message)
    if (done) return
  }
}

export function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`)
}

export function ready(implementation, capabilities) {
  return { type: 'ready', implementation, capabilities }
}

export function observed(seq, { events, commits, executed, history }) {
  return { type: 'observed', seq, accepted: true, events, commits, executed, history }
}

export function refused(seq, rule, message) {
  return { type: 'observed', seq, accepted: false, refusal: { rule, message } }
}

export function bye() {
  return { type: 'bye' }
}
