// `node:zlib` as dsh-session-persistence-jsonl expects it on Node >= 22.15, for Node 20: the real
// module plus zstd entry points that fail only when called. The adapter never calls them (it
// configures the JSONL backend with `compression: 'none'`); if something did, the error says why.
export * from 'node:zlib'

function zstdUnavailable() {
  return new Error('zstd is not available on this Node version; use compression: "none"')
}

function failAsync(...args) {
  const callback = args.findLast((arg) => typeof arg === 'function')
  const error = zstdUnavailable()
  if (callback === undefined) throw error
  queueMicrotask(() => callback(error))
}

function failSync() {
  throw zstdUnavailable()
}

export const zstdCompress = failAsync
export const zstdDecompress = failAsync
export const zstdCompressSync = failSync
export const zstdDecompressSync = failSync
export const createZstdCompress = failSync
export const createZstdDecompress = failSync
