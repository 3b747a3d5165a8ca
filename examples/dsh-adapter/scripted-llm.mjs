// The model, scripted by the driver: a real dsh `LlmAdapter` whose `stream()` parks a 'model'
// waiter and, once a ModelReplies or ModelFails command settles it, plays that reply back as the
// raw StreamChunk protocol a provider adapter would produce.
import { CallId, LlmAdapter, LlmError } from '@deepseek-ai/dsh-llm'

/** The provider name the adapter registers under; the agent's route selects it. */
export const PROVIDER = 'scripted'

/**
 * The chunks a provider would stream for `blocks`, in order: per block a block-start, one delta
 * carrying the whole text or arguments, and a block-end with the assembled block.
 *
 * No `usage` chunk is sent: the driver's commands carry no token counts, and a made-up one would
 * only add a `usage` field the model never writes.
 */
export function blockChunks(blocks) {
  const chunks = []
  blocks.forEach((block, index) => {
    if (block.type === 'tool-call') {
      const id = CallId(block.id)
      chunks.push(
        { type: 'block-start', index, blockType: 'tool-call' },
        { type: 'tool-call-delta', index, id, name: block.name, argumentsDelta: block.arguments },
        {
          type: 'block-end',
          index,
          block: { type: 'tool-call', id, name: block.name, arguments: block.arguments },
        },
      )
      return
    }
    const delta = block.type === 'reasoning' ? 'reasoning-delta' : 'text-delta'
    chunks.push({ type: 'block-start', index, blockType: block.type })
    if (block.text !== '') chunks.push({ type: delta, index, text: block.text })
    chunks.push({ type: 'block-end', index, block: { type: block.type, text: block.text } })
  })
  return chunks
}

/** The terminal finish chunk for a reply that ended normally. */
export function finishChunk(blocks, finish) {
  if (finish === 'max-tokens') return { type: 'finish', reason: { kind: 'max-tokens' } }
  const calls = blocks.some((block) => block.type === 'tool-call')
  return { type: 'finish', reason: { kind: calls ? 'tool-calls' : 'stop' } }
}

export class ScriptedLlm extends LlmAdapter {
  /**
   * @param pending - the waiter registry (pending.mjs)
   * @param cancelTurn - cancels the agent's open turn; used for replies that finish `cancelled`
   */
  constructor(pending, cancelTurn) {
    super()
    this.pending = pending
    this.cancelTurn = cancelTurn
  }

  async *stream(options) {
    const { signal } = options
    // Suspends until the driver says what the model does. An abort rejects the waiter, which
    // dsh sees as the provider stream failing after cancellation. The waiter keeps the messages
    // this request carries: the history the adapter reports while it is pending (history.mjs).
    const reply = await this.pending.wait(
      'model',
      options.sessionId,
      { messages: options.messages },
      signal,
    )
    if (reply.kind === 'fails') {
      // LlmError carries {message, code} through dsh's normalisation into turn/end.error.
      throw reply.message === ''
        ? new Error('LLM adapter failed')
        : new LlmError(reply.message, reply.code === '' ? 'UNKNOWN' : reply.code)
    }
    for (const chunk of blockChunks(reply.blocks)) yield chunk
    if (reply.finish === 'cancelled') {
      // The user cancelled while these blocks were streaming: cancel the turn the way a UI
      // would, then the stream dies with the abort, exactly as a provider stream does.
      this.cancelTurn()
      signal.throwIfAborted()
      throw new Error('stream cancelled')
    }
    yield finishChunk(reply.blocks, reply.finish)
  }
}
