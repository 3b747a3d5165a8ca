// Claude Code hooks, run by dsh's real hook bridge (@deepseek-ai/dsh-hooks-claude-code).
//
// The bridge reads a Claude Code hooks.json, runs each matching command through the `shell`
// service, parses the command's exit code / stdout / stderr with the Claude Code protocol, writes
// the `hook/invoked` / `hook/result` audit pair, and maps the merged decision onto dsh's
// `tools/pre-execute` (allow / deny / ask) and `tools/post-execute` (context / block) seams.
//
// The adapter keeps all of that real and replaces only the processes: it writes one hooks.json
// group per configured hook whose command is a token naming that hook, and provides a `shell`
// service that, instead of spawning, answers with what the driver says the hook printed:
//
// - PreToolUse: the run parks a 'hook' waiter; the next HookAnswers command settles it, and its
//   verdict becomes Claude Code output (permissionDecision allow / ask / deny, or exit code 2
//   with the reason on stderr for a deny whose audit says the hook exited 2; any other answer
//   audited with exit code 2 is refused, since the bridge would read it as a block).
// - PostToolUse: the verdicts arrive with ToolFinishes (one per matching hook, as in the model),
//   before dsh runs the hooks; the run answers at once. A call that never ran a body (dsh also
//   runs post-execute for denied calls) gets a pass.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import { Service } from '@deepseek-ai/cordis'
import { matchesMatcher } from '@deepseek-ai/dsh-hook-protocol'
import * as claudeCodeBridge from '@deepseek-ai/dsh-hooks-claude-code'

const COMMAND_PREFIX = 'loopspec-hook '
/** The matcher dialect the bridge uses (it passes 'claude-code' to the shared matcher). */
const BRIDGE_MATCHER_MODE = 'claude-code'

/** The configured PostToolUse hooks dsh will run for a call of `toolName`, in order. */
export function postHooksFor(hooks, toolName) {
  return hooks.filter(
    (hook) =>
      hook.point === 'PostToolUse' && matchesMatcher(hook.matcher, toolName, BRIDGE_MATCHER_MODE),
  )
}

/** A Claude Code hooks.json with one group per configured hook, in configured order. */
function hooksJson(hooks) {
  const events = { PreToolUse: [], PostToolUse: [] }
  hooks.forEach((hook, index) => {
    events[hook.point].push({
      // The matcher goes through unchanged: how dsh matches it is part of what is observed.
      matcher: hook.matcher,
      hooks: [{ type: 'command', command: `${COMMAND_PREFIX}${index}` }],
    })
  })
  return { hooks: events }
}

function processOutput(exitCode, stdout, stderr) {
  return { exitCode, stdout: { text: stdout }, stderr: { text: stderr } }
}

/**
 * Why dsh cannot be given this answer, or undefined when it can. The bridge reads a hook by the
 * Claude Code protocol, where exit code 2 always blocks (stdout unread): an audit saying the hook
 * exited 2 goes only with a deny (PreToolUse) or a block (PostToolUse). The model also accepts a
 * pass audited 'error' there (a Codex hook that exited 2 without a reason failed); dsh would
 * block it, so the adapter refuses it rather than show dsh blocking what the hook passed.
 */
export function exitCodeProblem(verdict, audit, blocking) {
  if (audit?.exitCode !== 2 || verdict?.decision === blocking) return undefined
  return (
    `a ${verdict?.decision ?? 'pass'} answer audited with exit code 2: dsh runs hooks by the ` +
    `Claude Code protocol, where exit code 2 is a ${blocking}`
  )
}

/** What a PreToolUse hook process "printed" for one HookAnswers command. */
export function preToolUseOutput({ verdict, audit }) {
  const stderr = audit?.stderrSummary ?? ''
  if (audit?.exitCode === 2 && verdict.decision === 'deny') {
    // Claude Code's blocking exit: stderr is the reason.
    return processOutput(2, '', verdict.reason ?? stderr)
  }
  const exitCode = audit?.exitCode ?? 0
  if (verdict.decision === 'pass') return processOutput(exitCode, '', stderr)
  const specific = { hookEventName: 'PreToolUse', permissionDecision: verdict.decision }
  if (verdict.reason !== undefined) specific.permissionDecisionReason = verdict.reason
  if (verdict.updatedInput !== undefined) specific.updatedInput = verdict.updatedInput
  return processOutput(exitCode, JSON.stringify({ hookSpecificOutput: specific }), stderr)
}

/** What a PostToolUse hook process "printed" for one verdict of ToolFinishes.post. */
export function postToolUseOutput(verdict) {
  const audit = verdict?.audit
  const stderr = audit?.stderrSummary ?? ''
  if (verdict === undefined || verdict.decision === 'pass') {
    return processOutput(audit?.exitCode ?? 0, '', stderr)
  }
  if (verdict.decision === 'block') {
    if (audit?.exitCode === 2) return processOutput(2, '', verdict.reason)
    const stdout = JSON.stringify({ decision: 'block', reason: verdict.reason })
    return processOutput(audit?.exitCode ?? 0, stdout, stderr)
  }
  const specific = { hookEventName: 'PostToolUse', additionalContext: verdict.text }
  return processOutput(audit?.exitCode ?? 0, JSON.stringify({ hookSpecificOutput: specific }), stderr)
}

/**
 * Register the fake `shell` service and the real Claude Code bridge on `root`.
 * @param root - the cordis root context
 * @param deps - {hooks, dir, pending, postVerdicts}
 */
export async function installHooks(root, { hooks, dir, pending, postVerdicts }) {
  class HookShell extends Service {
    constructor(ctx) {
      super(ctx, 'shell')
    }

    resolve(request) {
      return request
    }

    async run(request) {
      const hook = hooks[Number(request.command.slice(COMMAND_PREFIX.length))]
      const payload = JSON.parse(request.stdin)
      const callId = payload.tool_use_id
      if (hook.point === 'PostToolUse') {
        return postToolUseOutput(postVerdicts.get(callId)?.get(hook.handlerId))
      }
      try {
        const answer = await pending.wait(
          'hook',
          hook.handlerId,
          { callId, toolName: payload.tool_name },
          request.signal,
        )
        return preToolUseOutput(answer)
      } catch (error) {
        // The turn was aborted while the hook "ran": a real shell kills the process and fails.
        if (request.signal?.aborted) throw new Error('hook process killed: the turn was aborted')
        throw error
      }
    }
  }

  const configPath = join(dir, 'hooks.json')
  await writeFile(configPath, JSON.stringify(hooksJson(hooks), null, 2))
  await root.plugin(HookShell)
  await root.plugin(claudeCodeBridge, { configPath })
}
