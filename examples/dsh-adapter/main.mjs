// Entry point: the real dsh agent loop behind the loopspec driver protocol.
//
//   node --import ./examples/dsh-adapter/polyfills.mjs examples/dsh-adapter/main.mjs
//   examples/dsh-adapter/run.sh            (the same, from any directory)
//
// See README.md for what is supported and how each command maps onto dsh.
import { Adapter } from './adapter.mjs'
import { PROTOCOL_VERSION, Refusal, bye, observed, ready, refused, send, serve } from './protocol.mjs'

const adapter = new Adapter({ invariants: process.env.DSH_ADAPTER_INVARIANTS !== '0' })

async function handle(message) {
  switch (message?.type) {
    case 'reset': {
      if (message.protocol !== PROTOCOL_VERSION) {
        const note = `protocol ${message.protocol} requested; speaking ${PROTOCOL_VERSION}`
        process.stderr.write(`[dsh-adapter] ${note}\n`)
      }
      let capabilities
      try {
        capabilities = await adapter.reset(message.config)
      } catch (error) {
        // The protocol has no way to refuse a reset: say why on stderr and end, so the driver
        // reports a dead process with this message instead of waiting for an answer.
        process.stderr.write(`[dsh-adapter] reset failed: ${error?.stack ?? error}\n`)
        process.exit(1)
      }
      send(ready(adapter.implementation, capabilities))
      return false
    }
    case 'command': {
      try {
        send(observed(message.seq, await adapter.apply(message.command)))
      } catch (error) {
        // A Refusal is decided before dsh is touched. Anything else is an adapter or dsh failure
        // the protocol has no answer for; it is reported as a PROTO-1 refusal, with the stack on
        // stderr, so the driver stops trusting this session rather than hanging.
        if (!(error instanceof Refusal)) {
          process.stderr.write(`[dsh-adapter] ${error?.stack ?? error}\n`)
        }
        const rule = error instanceof Refusal ? error.rule : 'PROTO-1'
        send(refused(message.seq, rule, String(error?.message ?? error)))
      }
      return false
    }
    case 'shutdown':
      await adapter.close()
      send(bye())
      return true
    default:
      process.stderr.write(`[dsh-adapter] unknown message type ${JSON.stringify(message?.type)}\n`)
      return false
  }
}

await serve(process.stdin, handle)
await adapter.close()
// Abandoned (crashed) incarnations may still hold timers or pending promises; the protocol
// session is over, so leave without waiting for them.
process.exit(0)
