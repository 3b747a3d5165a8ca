// The loop's configuration: tools with their input contracts, hooks in configured order.

import { isBlank, isObject, parse, pythonRepr } from "./json.mjs";

export const PRE_TOOL_USE = "PreToolUse";
export const POST_TOOL_USE = "PostToolUse";

export class Config {
  // `tools`: [{name, concurrencySafe, requiredKeys}]; `hooks`: [{handlerId, point, matcher,
  // dialect}] in the order they run and combine (HOOK-3).
  constructor({ tools, hooks, maxParallel, provider, model }) {
    if (!(maxParallel >= 1)) throw new Error("maxParallel must be at least 1");
    const ids = hooks.map((h) => h.handlerId);
    if (new Set(ids).size !== ids.length) throw new Error("hook handler ids must be unique");
    this.tools = new Map();
    for (const tool of tools) if (!this.tools.has(tool.name)) this.tools.set(tool.name, tool);
    this.hooks = hooks.map((hook) => ({ ...hook, test: nameTest(hook.matcher) }));
    this.maxParallel = maxParallel;
    this.provider = provider;
    this.model = model;
  }

  tool(name) {
    return this.tools.get(name);
  }

  hooksFor(point, toolName) {
    return this.hooks.filter((hook) => hook.point === point && hook.test(toolName));
  }
}

// A matcher is a regular expression over the whole tool name; "" and "*" match every tool.
// The model reads it with Python's `re`; the common Python-only spelling, leading inline flags
// such as "(?i)", is turned into JS flags. Other dialect differences remain (see README).
function nameTest(matcher) {
  if (matcher === "" || matcher === "*") return () => true;
  const inline = /^\(\?([ims]+)\)/.exec(matcher);
  const body = inline === null ? matcher : matcher.slice(inline[0].length);
  const flags = inline === null ? "" : inline[1];
  let pattern;
  try {
    pattern = new RegExp(`^(?:${body})$`, `${flags}u`);
  } catch {
    pattern = new RegExp(`^(?:${body})$`, flags); // patterns only valid without the u flag
  }
  return (name) => pattern.test(name);
}

// Every reader parses raw arguments the same way (EXE-2): blank means {}, text that is not
// (lossless) JSON stays a raw string.
export function parseArguments(raw) {
  if (isBlank(raw)) return new Map();
  try {
    return parse(raw);
  } catch {
    return raw;
  }
}

// Why a value is not an acceptable input for `tool` (undefined: acceptable). An unknown tool
// accepts any object; it fails later, when it would start (UNKNOWN_TOOL).
export function inputProblem(tool, value) {
  if (!isObject(value)) return "the input must be a JSON object";
  const missing = (tool?.requiredKeys ?? []).filter((key) => !value.has(key));
  if (missing.length > 0) return `missing required ${missing.map(pythonRepr).join(", ")}`;
  return undefined;
}

// Why the model's own arguments cannot seal an execution (such calls never see a hook).
export function callInputProblem(call, config) {
  const problem = inputProblem(config.tool(call.name), parseArguments(call.arguments));
  return problem === undefined ? undefined : `invalid input for tool ${call.name}: ${problem}`;
}
