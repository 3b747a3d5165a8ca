// One incarnation of the real dsh runtime: a cordis root context with dsh's services, the scripted
// model, the test tools, optionally the Claude Code hook bridge and the approval service, the JSONL
// persistence backend, and one agent on one session.
//
// A loopspec Crash ends an incarnation (its in-memory state is dropped, its JSONL file kept); a
// Recover starts a new one that resumes the session from that file, which runs dsh's own crash
// repair. A reset starts a new one on a new session.
import { readFile } from 'node:fs/promises'
import { relative } from 'node:path'
import { setImmediate as nextMacrotask } from 'node:timers/promises'

import { Context } from '@deepseek-ai/cordis'
import { AgentRegistry } from '@deepseek-ai/dsh-agent'
import { AgentLoop } from '@deepseek-ai/dsh-agent-loop'
import { InvariantRegistry } from '@deepseek-ai/dsh-invariants'
import { LlmRuntime, createUserMessage } from '@deepseek-ai/dsh-llm'
import { SessionId, SessionStore } from '@deepseek-ai/dsh-session'
import { JsonlSessionPersistence } from '@deepseek-ai/dsh-session-persistence-jsonl'
import { SystemPrompt } from '@deepseek-ai/dsh-system-prompt'
import { ToolRuntime } from '@deepseek-ai/dsh-tools'
import { ApprovalService } from '@deepseek-ai/dsh-user-approval'

import { installHooks } from './hooks.mjs'
import { Pending } from './pending.mjs'
import { ScriptedLlm } from './scripted-llm.mjs'
import { defineTestTool } from './tools.mjs'

/**
 * dsh's own runtime contract checks (each package's `/invariant` companion). They throw on a
 * contract violation inside dsh, so a run with them on also checks dsh against itself.
 */
const INVARIANT_PACKAGES = ['dsh-session', 'dsh-agent-loop', 'dsh-tools', 'dsh-llm', 'dsh-agent']

/** How long `settle` waits, in real time, for dsh to block on the outside world. */
const SETTLE_DEADLINE_MS = 10_000

function warn(message) {
  process.stderr.write(`[dsh-adapter] ${message}\n`)
}

/**
 * @typedef {object} RuntimeOptions
 * @property {object} config - the driver's loop configuration
 * @property {string} storeDir - root directory of the JSONL persistence backend
 * @property {string} sessionId - the session's id (also the agent's)
 * @property {string} cwd - the session header's cwd
 * @property {boolean} invariants - load dsh's invariant companions
 * @property {boolean} resume - resume the session from storage instead of creating it
 */

export class DshRuntime {
  /** @param {RuntimeOptions} options */
  static async start(options) {
    const runtime = new DshRuntime(options)
    await runtime.boot()
    return runtime
  }

  /** @param {RuntimeOptions} options */
  constructor(options) {
    this.options = options
    this.pending = new Pending()
    /** bodies started since the last `drainExecuted`, in start order */
    this.executed = []
    /** PostToolUse verdicts the driver gave with ToolFinishes, by call id, then handler id */
    this.postVerdicts = new Map()
    this.root = undefined
    this.agent = undefined
  }

  async boot() {
    const { config, storeDir, sessionId, cwd, invariants, resume } = this.options
    const root = new Context()
    this.root = root
    // cordis drops warnings unless an exporter asks for them; dsh reports some behaviour
    // (an ignored updatedInput, a failed listener) only there.
    root.logger.exporter({
      levels: { default: 2 },
      export: (message) => {
        if (message.type === 'warn' || message.type === 'error') {
          warn(`${message.type}[${message.name}] ${message.args.map(String).join(' ')}`)
        }
      },
    })
    await root.plugin(InvariantRegistry)
    if (invariants) {
      for (const name of INVARIANT_PACKAGES) {
        await root.plugin(await import(`@deepseek-ai/${name}/invariant`))
      }
    }
    await root.plugin(SessionStore)
    await root.plugin(AgentRegistry)
    await root.plugin(LlmRuntime)
    await root.plugin(SystemPrompt)
    await root.plugin(ToolRuntime)
    await root.plugin(JsonlSessionPersistence, {
      root: storeDir,
      compression: 'none',
      writeBatchMaxDelayMs: 5,
    })
    if (config.hooks.length > 0) {
      // Hooks can ask, and dsh turns an `ask` into a denial unless an approval service exists.
      await root.plugin(ApprovalService, { policy: 'ask' })
      root.on('approval/request', (request) =>
        this.pending.wait('approval', request.callId, { toolName: request.toolName }, request.signal),
      )
      await installHooks(root, {
        hooks: config.hooks,
        dir: storeDir,
        pending: this.pending,
        postVerdicts: this.postVerdicts,
      })
    }
    await root.plugin(AgentLoop, { agents: [], maxParallelToolCalls: config.maxParallel })
    root.llm.registerAdapter(
      [config.provider],
      new ScriptedLlm(this.pending, () => this.cancel('user')),
    )
    for (const spec of config.tools) {
      root.tools.register(defineTestTool(spec, this.pending, this.executed))
    }
    const agentOptions = { provider: config.provider, model: config.model }
    const handle = resume
      ? await root.agents.resume({ resumeSessionId: SessionId(sessionId), agentOptions })
      : await root.agents.create({ sessionId: SessionId(sessionId), agentOptions, meta: { cwd } })
    this.agent = handle.agent
  }

  /** The session log (dsh's frozen snapshot). */
  get events() {
    return this.agent.session.events
  }

  get idle() {
    return this.agent.status === 'idle'
  }

  /** A user message: it opens a turn when the agent is idle, else waits for the next step. */
  submit(text) {
    const message = createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } })
    if (this.idle) {
      this.agent.followup(message)
    } else {
      // `steer` queues for the next step boundary of the open turn (loopspec ADJ-4);
      // `followup` would queue it for a new turn after this one.
      this.agent.steer(message)
    }
  }

  cancel(cause) {
    this.agent.cancel({ kind: cause })
  }

  /**
   * Let dsh run until it is quiescent: the agent is idle, or it is blocked on the outside world
   * (a pending waiter) and nothing has moved for a few turns of the event loop.
   *
   * dsh's loop is promise-driven, so a macrotask turn runs every continuation that is ready; two
   * turns in a row with no new event and no new or settled waiter mean nothing else can happen
   * until the driver's next command. Real I/O (the persistence write-behind) never gates the loop.
   */
  async settle() {
    const deadline = Date.now() + SETTLE_DEADLINE_MS
    let last = ''
    let stable = 0
    while (Date.now() < deadline) {
      await nextMacrotask()
      const mark = `${this.events.length}/${this.pending.version}/${this.agent.status}`
      stable = mark === last ? stable + 1 : 0
      last = mark
      if (stable >= 2 && (this.idle || this.pending.size > 0)) return
      if (stable >= 50) await new Promise((resolve) => setTimeout(resolve, 1))
    }
    warn(`dsh did not settle within ${SETTLE_DEADLINE_MS} ms (status ${this.agent.status})`)
  }

  /** Bodies started since the last call, in start order. */
  drainExecuted() {
    return this.executed.splice(0)
  }

  /** Where the JSONL backend keeps this session's log. */
  get logPath() {
    return this.root.sessionPersistence.locate(this.agent.session.header).path
  }

  /**
   * Crash: make everything appended so far durable (every event was reported as committed), then
   * keep only the file's bytes. Disposing it afterwards appends more events to that file (it
   * cancels the agent), which a crashed process would not: the resumed incarnation starts from
   * these bytes in a store of its own.
   * @returns the durable state: the log's path inside the store and its bytes (undefined when
   *   dsh never materialised the session, which it does only at its first event)
   */
  async crash() {
    await this.root.sessions.flush(this.agent.session)
    const path = this.logPath
    const bytes = this.events.length === 0 ? undefined : await readFile(path)
    return { relativePath: relative(this.options.storeDir, path), bytes }
  }

  /**
   * Tear the incarnation down for good (crash, reset, shutdown). Whatever dsh is waiting on is
   * refused first, so the agent can wind down instead of waiting forever; the store it leaves
   * behind is never read again, so nothing waits on this but the folder's removal, and the timer
   * only keeps a teardown that never ends from holding up the adapter's exit.
   */
  async dispose() {
    for (const waiter of [...this.pending.waiters]) waiter.reject(new Error('adapter reset'))
    const timeout = new Promise((resolve) => setTimeout(resolve, 2_000).unref())
    await Promise.race([this.root.fiber.dispose().catch(() => undefined), timeout])
  }
}
