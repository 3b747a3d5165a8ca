// Module resolve hook registered by ./polyfills.mjs (Node 20 only).
//
// dsh-session-persistence-jsonl does `import { zstdCompress, ... } from 'node:zlib'`, which Node
// 20 rejects at link time because those exports do not exist yet. Only for imports made from that
// package, resolve `node:zlib` to ./zlib-shim.mjs instead; every other importer gets the real one.
const SHIM = new URL('./zlib-shim.mjs', import.meta.url).href
const PACKAGE = '/@deepseek-ai/dsh-session-persistence-jsonl/'

export async function resolve(specifier, context, nextResolve) {
  const fromJsonl = context.parentURL !== undefined && context.parentURL.includes(PACKAGE)
  if (fromJsonl && (specifier === 'node:zlib' || specifier === 'zlib')) {
    return { url: SHIM, shortCircuit: true }
  }
  return nextResolve(specifier, context)
}
