// Node 20 shims for the dsh packages, loaded before anything else with
//   node --import ./examples/dsh-adapter/polyfills.mjs examples/dsh-adapter/main.mjs
//
// The dsh 0.1.0-rc.8 packages target Node >= 22 but declare no "engines" field, and two things
// they use do not exist on Node 20:
//
// 1. `Promise.withResolvers` (Node 22). dsh-agent-loop, -agent, -session, -llm and -tools call
//    it unconditionally, so without it the AgentLoop service cannot even be constructed.
// 2. zstd in `node:zlib` (Node 22.15). dsh-session-persistence-jsonl imports the zstd functions
//    by name, which fails at link time. A module resolve hook (./compat-hooks.mjs) points that one
//    package's `node:zlib` import at ./zlib-shim.mjs. The adapter configures the JSONL backend
//    with `compression: 'none'`, so the zstd stubs are never called.
//
// On a Node that has both features, this file changes nothing.
import { register } from 'node:module'

if (typeof Promise.withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers() {
      let resolve
      let reject
      const promise = new this((res, rej) => {
        resolve = res
        reject = rej
      })
      return { promise, resolve, reject }
    },
  })
}

let zlib
try {
  zlib = await import('node:zlib')
} catch {
  zlib = {}
}
if (typeof zlib.zstdCompress !== 'function') {
  register('./compat-hooks.mjs', import.meta.url)
}
