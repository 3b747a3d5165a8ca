// The configured test tools, defined with dsh's own `defineTool`.
//
// Each tool's body parks a 'tool' waiter keyed by its call id and returns (or throws) whatever the
// driver's ToolFinishes command says. The body deliberately ignores the abort signal: a running
// body in the loopspec model drains after an Abort (rule ABORT-1) and settles only when the driver
// says so, so here too the only thing that ends a body is ToolFinishes.
import { HarnessError, createUserMessage } from '@deepseek-ai/dsh-llm'
import { defineTool } from '@deepseek-ai/dsh-tools'

/** The plugin name that tool-deferred context messages carry (as in the loopspec model). */
export const TOOL_CONTEXT_PLUGIN = 'tool-context'

/** A body failure; with a code it is a HarnessError, so dsh records `{name, code}` error info. */
function bodyFailure(outcome) {
  if (outcome.code === undefined) {
    const error = new Error(outcome.message)
    if (outcome.errorName !== undefined) error.name = outcome.errorName
    return error
  }
  const error = new HarnessError(outcome.message, outcome.code)
  error.name = outcome.errorName ?? 'ToolError'
  return error
}

/**
 * One dsh tool per configured tool.
 * @param spec - {name, concurrencySafe, requiredKeys} from the driver config
 * @param pending - the waiter registry
 * @param executed - array the adapter drains after each command: bodies started, in order
 */
export function defineTestTool(spec, pending, executed) {
  // `type: 'json'` accepts any value: the model's input contract only asks that the keys exist.
  const parameters = Object.fromEntries(
    spec.requiredKeys.map((key) => [key, { type: 'json', required: true }]),
  )
  return defineTool({
    name: spec.name,
    description: `loopspec test tool ${spec.name}`,
    parameters,
    output: {
      // The body's value is the result text. No `presentationMeta`: dsh calls it for every
      // success and requires JSON back, so it cannot express "no meta" for one call and meta
      // for another. ToolSucceeded.meta is therefore not forwarded (see README).
      schema: { type: 'string' },
      render: (_args, text) => [{ type: 'text', text }],
    },
    // Only an exact `true` makes dsh run a call in parallel.
    isConcurrencySafe: () => spec.concurrencySafe === true,
    async execute(args, exec) {
      executed.push({ callId: exec.callId, arguments: JSON.stringify(args) })
      // No signal: see the module comment.
      const outcome = await pending.wait('tool', exec.callId, { name: spec.name })
      if (!outcome.ok) throw bodyFailure(outcome)
      for (const text of outcome.contexts ?? []) {
        exec.deferContext(
          createUserMessage({
            content: [{ type: 'text', text }],
            source: { kind: 'plugin', plugin: TOOL_CONTEXT_PLUGIN },
          }),
        )
      }
      return outcome.text
    },
  })
}
