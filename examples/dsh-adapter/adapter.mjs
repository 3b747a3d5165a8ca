// The command mapping: one loopspec driver command at a time onto one real dsh runtime.
//
// Each accepted command is fed into dsh, dsh runs until it is quiescent, and the answer is what
// dsh appended to its session log meanwhile (the real wire events, as plain JSON), one commit per
// event, and the tool bodies that started. A command that does not fit what dsh is waiting for is
// refused, with the rule the loopspec model would cite, before anything is touched.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

import { HistoryReport, nextRequestMessages } from './history.mjs'
import { exitCodeProblem, postHooksFor } from './hooks.mjs'
import { Refusal } from './protocol.mjs'
import { DshRuntime } from './session.mjs'

const require = createRequire(import.meta.url)
const DSH_VERSION = require('@deepseek-ai/dsh-agent-loop/package.json').version

/**
 * What this adapter really supports through dsh, whatever the configuration. Not "rewrite":
 * dsh's hook bridge logs a warning for `updatedInput` and runs the original input. "history" is
 * what dsh's model requests carry (history.mjs).
 */
export const CAPABILITIES = Object.freeze([
  'abort',
  'approval',
  'crash-repair',
  'history',
  'max-tokens',
  'parallel',
  'post-hooks',
  'pre-hooks',
  'queued-input',
])

/** The wire fields of a dsh session event, detached from dsh's frozen objects. */
function wireEvent(event) {
  const wire = {
    type: event.type,
    seq: event.seq,
    time: event.time,
    data: JSON.parse(JSON.stringify(event.data ?? {})),
  }
  if (event.surfaceOp !== undefined) wire.surfaceOp = JSON.parse(JSON.stringify(event.surfaceOp))
  if (event.sourceEventSeqs !== undefined) wire.sourceEventSeqs = [...event.sourceEventSeqs]
  return wire
}

/** Whether the open step's reply has tool calls that are still being dispatched. */
function dispatching(events) {
  for (let i = events.length - 1; i >= 0; i--) {
    const { type, data } = events[i]
    if (type === 'step/end' || type === 'step/start' || type === 'turn/end') return false
    if (type === 'assistant/message') {
      return !data.interrupted && data.message.content.some((block) => block.type === 'tool-call')
    }
  }
  return false
}

export class Adapter {
  constructor({ invariants = true } = {}) {
    this.invariants = invariants
    this.implementation = `dsh-agent-loop@${DSH_VERSION} (loopspec dsh-adapter)`
    this.config = undefined
    this.runtime = undefined
    /** teardowns of the current session's crashed incarnations (see `Crash`) */
    this.crashDisposals = []
    /** the folder the live incarnation persists to; each incarnation has its own (see `Recover`) */
    this.storeDir = undefined
    /** every store folder of the current session, removed when it is retired */
    this.storeDirs = []
    /** the session header's cwd, which names the log's folder inside a store */
    this.sessionCwd = undefined
    /** teardowns of earlier sessions still running (see `reset`) */
    this.teardowns = new Set()
    this.sessionCount = 0
    /** how many log events have been reported; the next answer starts there */
    this.reported = 0
    /** set by Crash: the durable bytes a Recover starts from */
    this.crashed = undefined
    /** set by Abort until the agent is idle again: dsh honours one cancel per activity */
    this.aborting = false
    /** the history reported so far (capability "history") */
    this.history = new HistoryReport()
  }

  async reset(config) {
    // The last session is torn down while the next one boots and runs: its teardown waits on
    // dsh's timers (and nothing of it is read again), so waiting for it here would only add its
    // time to every reset. `close` waits for every teardown still running.
    this.retire()
    this.config = config
    this.storeDir = await mkdtemp(join(tmpdir(), 'loopspec-dsh-'))
    this.storeDirs = [this.storeDir]
    this.sessionCwd = this.storeDir
    this.sessionCount += 1
    this.sessionId = `loopspec-${process.pid}-${this.sessionCount}`
    this.reported = 0
    this.crashed = undefined
    this.aborting = false
    this.history = new HistoryReport()
    this.runtime = await this.start(false)
    return [...CAPABILITIES]
  }

  start(resume) {
    return DshRuntime.start({
      config: this.config,
      storeDir: this.storeDir,
      sessionId: this.sessionId,
      cwd: this.sessionCwd,
      invariants: this.invariants,
      resume,
    })
  }

  /** Start tearing down every incarnation of the current session and its storage. */
  retire() {
    const disposals = [
      ...this.crashDisposals,
      ...(this.runtime === undefined ? [] : [this.runtime.dispose()]),
    ]
    const storeDirs = this.storeDirs
    this.crashDisposals = []
    this.runtime = undefined
    this.storeDir = undefined
    this.storeDirs = []
    const teardown = Promise.all(disposals).then(() =>
      Promise.all(storeDirs.map((dir) => rm(dir, { recursive: true, force: true }))),
    )
    this.teardowns.add(teardown)
    teardown
      .catch((error) => {
        process.stderr.write(`[dsh-adapter] teardown failed: ${error?.stack ?? error}\n`)
      })
      .finally(() => this.teardowns.delete(teardown))
  }

  async close() {
    this.retire()
    await Promise.allSettled([...this.teardowns])
  }

  /**
   * Apply one command; resolves to {events, commits, executed, history} or rejects with a
   * Refusal.
   */
  async apply(command) {
    if (this.crashed !== undefined && command.kind !== 'Recover') {
      throw new Refusal('MODEL-1', `${command.kind} after a crash: only Recover is accepted`)
    }
    if (this.runtime === undefined && this.crashed === undefined) {
      throw new Refusal('PROTO-1', 'reset first')
    }
    const feed = FEEDERS[command.kind]
    if (feed === undefined) throw new Refusal('PROTO-1', `unknown command ${command.kind}`)
    await feed.call(this, command)
    return this.observe()
  }

  /** What dsh did since the last answer, once it is quiescent. */
  async observe() {
    if (this.crashed !== undefined) {
      return { events: [], commits: [], executed: [], history: this.history.unchanged() }
    }
    await this.runtime.settle()
    if (this.runtime.idle) this.aborting = false
    const events = this.runtime.events.slice(this.reported).map(wireEvent)
    this.reported += events.length
    return {
      events,
      // dsh appends (and its JSONL backend persists) one event at a time, so a crash can cut
      // between any two: each event is its own commit.
      commits: events.map(() => 1),
      executed: this.runtime.drainExecuted(),
      history: this.history.change(nextRequestMessages(this.runtime)),
    }
  }

  /**
   * The waiter this command settles, or a refusal: `rule` when dsh is dispatching a batch (the
   * model's phase is then Dispatching, where the command is legal but does not fit), MODEL-1
   * otherwise (the command is not legal in the model's phase at all).
   */
  waiter(kind, key, rule, message) {
    const waiter = this.runtime.pending.find(kind, key)
    if (waiter !== undefined) return waiter
    throw new Refusal(dispatching(this.runtime.events) ? rule : 'MODEL-1', message)
  }
}

/** One feeder per command kind: check it fits dsh's state, then hand it to dsh. */
const FEEDERS = {
  SubmitUser(command) {
    this.runtime.submit(command.text)
  },

  ModelReplies(command) {
    const waiter = this.waiter('model', undefined, 'MODEL-1', 'no model request is pending')
    waiter.resolve({ kind: 'replies', blocks: command.blocks, finish: command.finish })
  },

  ModelFails(command) {
    const waiter = this.waiter('model', undefined, 'MODEL-1', 'no model request is pending')
    waiter.resolve({ kind: 'fails', message: command.message, code: command.code })
  },

  HookAnswers(command) {
    const waiter = this.waiter('hook', undefined, 'MODEL-1', 'no PreToolUse hook is running')
    const problem = exitCodeProblem(command.verdict, command.audit, 'deny')
    if (problem !== undefined) throw new Refusal('HOOK-1', problem)
    waiter.resolve({ verdict: command.verdict, audit: command.audit })
  },

  ApprovalAnswers(command) {
    const waiter = this.waiter('approval', undefined, 'DEC-2', 'no approval request is pending')
    waiter.resolve(command.outcome)
  },

  ToolFinishes(command) {
    const message = `no running call ${JSON.stringify(command.callId)}`
    const waiter = this.waiter('tool', command.callId, 'EXE-4', message)
    const hooks = postHooksFor(this.config.hooks, waiter.info.name)
    const post = command.post ?? []
    if (post.length !== hooks.length) {
      throw new Refusal(
        'HOOK-5',
        `${hooks.length} PostToolUse hook(s) match, ${post.length} verdict(s) given`,
      )
    }
    for (const verdict of post) {
      const problem = exitCodeProblem(verdict, verdict.audit, 'block')
      if (problem !== undefined) throw new Refusal('HOOK-1', problem)
    }
    if (hooks.length > 0) {
      this.runtime.postVerdicts.set(
        command.callId,
        new Map(hooks.map((hook, i) => [hook.handlerId, post[i]])),
      )
    }
    if (command.outcome.ok && command.outcome.meta !== undefined) {
      process.stderr.write('[dsh-adapter] ToolSucceeded.meta is not forwarded (see README)\n')
    }
    waiter.resolve(command.outcome)
  },

  Abort(command) {
    if (this.runtime.idle) throw new Refusal('MODEL-1', 'no turn is open')
    if (this.aborting) throw new Refusal('ABORT-1', 'the turn is already aborting')
    this.aborting = true
    this.runtime.cancel(command.cause)
  },

  async Crash() {
    this.crashed = await this.runtime.crash()
    // A crashed process appends nothing more, but disposing an incarnation cancels what it
    // still holds (a context deferred to the next step) and appends that under its own next
    // seq, whenever its teardown gets there. It appends to its own store folder: Recover
    // resumes from a copy of the durable bytes in a new one, so nothing the dead incarnation
    // writes, however late, reaches the resumed session's log (LOG-1).
    this.crashDisposals.push(this.runtime.dispose())
    this.runtime = undefined
  },

  async Recover() {
    if (this.crashed === undefined) throw new Refusal('MODEL-1', 'Recover without a crash')
    const { relativePath, bytes } = this.crashed
    this.storeDir = await mkdtemp(join(tmpdir(), 'loopspec-dsh-'))
    this.storeDirs.push(this.storeDir)
    if (bytes !== undefined) {
      const path = join(this.storeDir, relativePath)
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, bytes)
    }
    this.crashed = undefined
    this.aborting = false
    // A session that crashed before its first event was never written: there is nothing to
    // resume, so the reopened session starts empty under the same id.
    this.runtime = await this.start(bytes !== undefined)
    if (this.runtime.events.length < this.reported) {
      process.stderr.write(
        `[dsh-adapter] resumed log has ${this.runtime.events.length} events, ${this.reported} were reported\n`,
      )
    }
  },
}
