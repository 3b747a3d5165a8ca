// The driver protocol (loopspec's properties/conformance/driver_protocol.py): decoding what the driver
// sends into plain commands and configs, and encoding the answers.
//
// Payloads the loop only passes through (a hook's updatedInput, a tool's meta, audit numbers)
// stay in the json.mjs tree, so they are echoed exactly as received.

import { Config } from "./config.mjs";
import { JsonNumber } from "./json.mjs";

export const PROTOCOL_VERSION = 1;
export const IMPLEMENTATION = "loopspec-js-loop 0.1.0";
// Everything the loop implements; the driver skips commands needing a capability not listed.
export const CAPABILITIES = [
  "abort",
  "approval",
  "crash-repair",
  "history",
  "max-tokens",
  "parallel",
  "post-hooks",
  "pre-hooks",
  "presentation",
  "queued-input",
  "result-meta",
  "rewrite",
];

export class ProtocolError extends Error {}

// -- field readers: each names the JSON path it failed on ---------------------------------------

function object(value, path) {
  if (!(value instanceof Map)) throw new ProtocolError(`${path} must be an object`);
  return value;
}

function string(map, key, path, { optional = false, nonEmpty = false } = {}) {
  const value = map.get(key);
  if (optional && (value === undefined || value === null)) return undefined;
  if (typeof value !== "string" || (nonEmpty && value === "")) {
    throw new ProtocolError(`${path}.${key} must be a${nonEmpty ? " non-empty" : ""} string`);
  }
  return value;
}

function oneOf(map, key, path, allowed) {
  const value = string(map, key, path);
  if (!allowed.includes(value)) {
    throw new ProtocolError(`${path}.${key} must be one of ${allowed.join(", ")}`);
  }
  return value;
}

function integer(map, key, path) {
  const value = map.get(key);
  if (!(value instanceof JsonNumber) || !/^-?\d+$/.test(value.text)) {
    throw new ProtocolError(`${path}.${key} must be an integer`);
  }
  return value;
}

function array(map, key, path) {
  const value = map.get(key) ?? [];
  if (!Array.isArray(value)) throw new ProtocolError(`${path}.${key} must be an array`);
  return value;
}

const absent = (value) => (value === null ? undefined : value);

// -- configuration ------------------------------------------------------------------------------

export function decodeConfig(value, path = "$.config") {
  const obj = object(value, path);
  const tools = array(obj, "tools", path).map((raw, i) => {
    const at = `${path}.tools[${i}]`;
    const tool = object(raw, at);
    const keys = array(tool, "requiredKeys", at);
    if (!keys.every((k) => typeof k === "string")) {
      throw new ProtocolError(`${at}.requiredKeys must be strings`);
    }
    return {
      name: string(tool, "name", at),
      concurrencySafe: tool.get("concurrencySafe") === true,
      requiredKeys: keys,
    };
  });
  const hooks = array(obj, "hooks", path).map((raw, i) => {
    const at = `${path}.hooks[${i}]`;
    const hook = object(raw, at);
    return {
      handlerId: string(hook, "handlerId", at, { nonEmpty: true }),
      point: oneOf(hook, "point", at, ["PreToolUse", "PostToolUse"]),
      matcher: string(hook, "matcher", at),
      dialect: oneOf(hook, "dialect", at, ["claude-code", "codex"]),
    };
  });
  integer(obj, "epochMs", path); // the model's clock; this loop uses the real one
  return new Config({
    tools,
    hooks,
    maxParallel: Number(integer(obj, "maxParallel", path)),
    provider: string(obj, "provider", path),
    model: string(obj, "model", path),
  });
}

// -- commands -----------------------------------------------------------------------------------

function audit(obj, path) {
  const raw = absent(obj.get("audit"));
  if (raw === undefined) return undefined;
  const at = `${path}.audit`;
  const map = object(raw, at);
  const duration = map.get("durationMs") ?? new JsonNumber("0.0");
  if (!(duration instanceof JsonNumber) || !(Number(duration) >= 0)) {
    throw new ProtocolError(`${at}.durationMs must be a number >= 0`);
  }
  return {
    decision: string(map, "decision", at, { optional: true }),
    exitCode: absent(map.get("exitCode")) === undefined ? undefined : integer(map, "exitCode", at),
    stderrSummary: string(map, "stderrSummary", at, { optional: true }),
    durationMs: duration,
  };
}

function verdict(value, path) {
  const obj = object(value, path);
  const decision = oneOf(obj, "decision", path, ["pass", "allow", "ask", "deny"]);
  if (decision === "pass") return { decision };
  if (decision === "deny") return { decision, reason: string(obj, "reason", path) };
  return {
    decision,
    reason: string(obj, "reason", path, { optional: true }),
    updatedInput: absent(obj.get("updatedInput")),
  };
}

function postVerdict(value, path) {
  const obj = object(value, path);
  const decision = oneOf(obj, "decision", path, ["pass", "context", "block"]);
  const judged = { decision, audit: audit(obj, path) };
  if (decision === "context") judged.text = string(obj, "text", path);
  if (decision === "block") judged.reason = string(obj, "reason", path);
  return judged;
}

function outcome(value, path) {
  const obj = object(value, path);
  if (obj.get("ok") === true) {
    const contexts = array(obj, "contexts", path);
    if (!contexts.every((c) => typeof c === "string")) {
      throw new ProtocolError(`${path}.contexts must be strings`);
    }
    return { ok: true, text: string(obj, "text", path), contexts, meta: absent(obj.get("meta")) };
  }
  if (obj.get("ok") === false) {
    return {
      ok: false,
      message: string(obj, "message", path),
      code: string(obj, "code", path, { optional: true }),
      errorName: string(obj, "errorName", path, { optional: true }) || "ToolError",
    };
  }
  throw new ProtocolError(`${path}.ok must be true or false`);
}

function block(value, path) {
  const obj = object(value, path);
  const type = oneOf(obj, "type", path, ["text", "reasoning", "tool-call"]);
  if (type !== "tool-call") return { type, text: string(obj, "text", path) };
  return {
    type,
    id: string(obj, "id", path, { nonEmpty: true }),
    name: string(obj, "name", path, { nonEmpty: true }),
    arguments: string(obj, "arguments", path),
  };
}

const DECODERS = {
  SubmitUser: (obj, path) => ({ text: string(obj, "text", path) }),
  ModelReplies: (obj, path) => ({
    finish: oneOf(obj, "finish", path, ["completed", "max-tokens", "cancelled"]),
    blocks: array(obj, "blocks", path).map((b, i) => block(b, `${path}.blocks[${i}]`)),
  }),
  ModelFails: (obj, path) => ({
    message: string(obj, "message", path),
    code: string(obj, "code", path),
  }),
  HookAnswers: (obj, path) => ({
    verdict: verdict(obj.get("verdict"), `${path}.verdict`),
    audit: audit(obj, path),
  }),
  ApprovalAnswers: (obj, path) => ({
    outcome: oneOf(obj, "outcome", path, ["allowed-once", "rejected", "cancelled", "unavailable"]),
  }),
  ToolFinishes: (obj, path) => ({
    callId: string(obj, "callId", path),
    outcome: outcome(obj.get("outcome"), `${path}.outcome`),
    post: array(obj, "post", path).map((v, i) => postVerdict(v, `${path}.post[${i}]`)),
  }),
  Abort: (obj, path) => ({
    cause: oneOf(obj, "cause", path, ["user", "parent", "hook", "disposed"]),
  }),
  Crash: () => ({}),
  Recover: () => ({}),
};

export function decodeCommand(value, path = "$.command") {
  const obj = object(value, path);
  const kind = string(obj, "kind", path);
  const decode = DECODERS[kind];
  if (decode === undefined) throw new ProtocolError(`${path}.kind: unknown command ${kind}`);
  return { kind, ...decode(obj, path) };
}

// -- answers ------------------------------------------------------------------------------------

export const ready = () => ({
  type: "ready",
  implementation: IMPLEMENTATION,
  capabilities: CAPABILITIES,
});

export function observed(seq, outcome) {
  if (!outcome.accepted) {
    const refusal = { rule: outcome.rule, message: outcome.message };
    return { type: "observed", seq, accepted: false, refusal };
  }
  const { events, commits, executed, presented, history } = outcome;
  return { type: "observed", seq, accepted: true, events, commits, executed, presented, history };
}
