// Presentation: the ACP messages a UI is sent as events commit (SPEC VIEW-2..4, ACP-1..3, RW-1).
//
// Written from SPEC's rules, sharing no code with loopspec. The UI watches the durable log:
//   - each tool/call gets a `tool_call` card, rendered from the call's recorded (effective)
//     arguments, so a rewritten call shows what runs (RW-1);
//   - each approval/asked gets a `session/request_permission` for that same call, its rawInput
//     the effective arguments (RW-4, ACP-3);
//   - each appended tool/result gets a `tool_call_update`, rendered from the call it answers and
//     the durable result (content, error flag, meta) alone (VIEW-2).
// A card is a function of what the log holds: a renderer that cannot make sense of its input
// falls back to a generic card or to the raw result content, never fails (VIEW-3). The client
// is not terminal-capable (ACP-2) and its session cwd is /workspace (VIEW-4).

import { JsonNumber, isObject } from "./json.mjs";
import { parseArguments } from "./config.mjs";

const SESSION_ID = "session";
const SESSION_CWD = "/workspace";
const OPTIONS = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

// -- reading arguments: any mismatch throws Unfit, and the caller falls back -------------------

class Unfit extends Error {}

function fieldsOf(args) {
  if (!isObject(args)) throw new Unfit("not an object");
  return args;
}

// A JSON null counts as absent, for optional and required fields alike.
const present = (value) => value !== undefined && value !== null;

function needString(fields, key) {
  const value = fields.get(key);
  if (typeof value !== "string") throw new Unfit(`${key} must be a string`);
  return value;
}

function maybeString(fields, key) {
  const value = fields.get(key);
  if (!present(value)) return null;
  if (typeof value !== "string") throw new Unfit(`${key} must be a string when present`);
  return value;
}

function maybeBoolean(fields, key) {
  const value = fields.get(key);
  if (!present(value)) return null;
  if (typeof value !== "boolean") throw new Unfit(`${key} must be a boolean when present`);
  return value;
}

// An integer (written without fraction or exponent) of at least `least`, as a BigInt.
function maybeInteger(fields, key, least) {
  const value = fields.get(key);
  if (!present(value)) return null;
  if (value instanceof JsonNumber && /^-?\d+$/.test(value.text)) {
    const whole = BigInt(value.text);
    if (whole >= BigInt(least)) return whole;
  }
  throw new Unfit(`${key} must be an integer >= ${least} when present`);
}

function needArray(fields, key) {
  const value = fields.get(key);
  if (!Array.isArray(value)) throw new Unfit(`${key} must be an array`);
  return value;
}

// -- paths, titles and terminal text -----------------------------------------------------------

function segments(absolute) {
  const kept = [];
  for (const part of absolute.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") kept.pop();
    else kept.push(part);
  }
  return kept;
}

// `path` relative to `cwd` when both are absolute and it lies strictly inside; otherwise "".
function insideWorkspace(path, cwd) {
  if (!path.startsWith("/") || !cwd.startsWith("/")) return "";
  const target = segments(path);
  const base = segments(cwd);
  let shared = 0;
  while (shared < target.length && shared < base.length && target[shared] === base[shared]) {
    shared += 1;
  }
  const relative = [...Array(base.length - shared).fill(".."), ...target.slice(shared)].join("/");
  return relative === "" || relative.split("/")[0] === ".." ? "" : relative;
}

// Every occurrence of `path` in the title shortened, when the path is inside the workspace.
function shortTitle(title, path) {
  if (path === undefined) return title;
  const relative = insideWorkspace(path, SESSION_CWD);
  return relative === "" ? title : title.split(path).join(relative);
}

function fenced(output) {
  const body = output.replace(/\n+$/, "");
  const runs = body.match(/`+/g) ?? [];
  const longest = Math.max(0, ...runs.map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}console\n${body}\n${fence}`;
}

function exitCode(line) {
  const match = /^\[exit code: (-?)(0|[1-9]\d*)\]$/.exec(line);
  if (match === null || match[2].length > 10 || `${match[1]}${match[2]}` === "-0") return null;
  return Number(`${match[1]}${match[2]}`);
}

function signalName(line) {
  const match = /^\[signal: (SIG[A-Z0-9]+)\]$/.exec(line);
  return match === null ? null : match[1];
}

// A bash result's text split at its last line, when that line is an exit or signal marker.
function splitMarker(text) {
  const trimmed = text.replace(/\n+$/, "");
  const cut = trimmed.lastIndexOf("\n");
  const head = cut < 0 ? "" : trimmed.slice(0, cut);
  const last = cut < 0 ? trimmed : trimmed.slice(cut + 1);
  const code = exitCode(last);
  const signal = code === null ? signalName(last) : null;
  if (code === null && signal === null) return { output: text, exitCode: null, signal: null };
  return { output: head, exitCode: code, signal };
}

// A file card's title: the verb alone for an empty path, which names no file.
function fileTitle(verb, path) {
  return path === "" ? verb : `${verb} ${path}`;
}

function readTitle(path, offset, limit) {
  const first = offset === null || offset === 0n ? 1n : offset;
  const title = fileTitle("Read", path);
  if (limit !== null) return `${title} (${first} - ${first + limit - 1n})`;
  if (offset !== null) return `${title} (from line ${first})`;
  return title;
}

// -- views: what each call and result renders as ------------------------------------------------

const textBlock = (text) => ({ type: "text", text });

function bashArgs(args) {
  const fields = fieldsOf(args);
  return {
    command: needString(fields, "command"),
    description: maybeString(fields, "description"),
    cwd: maybeString(fields, "cwd"),
    background: maybeBoolean(fields, "run_in_background") === true,
  };
}

const CALL_VIEWS = {
  bash(args) {
    const bash = bashArgs(args);
    if (bash.background) {
      // No live terminal exists for a background job: a generic card that executes.
      const content = bash.description ? [textBlock(bash.description)] : [];
      return { card: "generic", title: bash.command, kind: "execute", content, locations: [] };
    }
    return { card: "terminal", title: bash.command, description: bash.description };
  },
  read(args) {
    const fields = fieldsOf(args);
    const path = needString(fields, "file_path");
    const offset = maybeInteger(fields, "offset", 0);
    const limit = maybeInteger(fields, "limit", 1);
    const line = offset === null || offset === 0n ? 1n : offset;
    const locations = [{ path, line }];
    const title = readTitle(path, offset, limit);
    return { card: "generic", title, kind: "read", content: [], locations };
  },
  write(args) {
    const fields = fieldsOf(args);
    const path = needString(fields, "file_path");
    const diff = { path, oldText: null, newText: needString(fields, "content") };
    return { card: "diff", title: fileTitle("Write", path), diffs: [diff], locations: [{ path }] };
  },
  edit(args) {
    const fields = fieldsOf(args);
    maybeBoolean(fields, "replace_all");
    const path = needString(fields, "file_path");
    const before = needString(fields, "old_string");
    const after = needString(fields, "new_string");
    // An empty old_string creates the file: a diff without old text.
    const diff = { path, oldText: before === "" ? null : before, newText: after };
    return { card: "diff", title: fileTitle("Edit", path), diffs: [diff], locations: [{ path }] };
  },
  todo(args) {
    for (const item of needArray(fieldsOf(args), "todos")) {
      if (!isObject(item)) throw new Unfit("each todo must be an object");
      needString(item, "content");
      needString(item, "status");
    }
    return { card: "generic", title: "Update todos", kind: "think", content: [], locations: [] };
  },
};

function callView(name, args) {
  const render = Object.hasOwn(CALL_VIEWS, name) ? CALL_VIEWS[name] : undefined;
  if (render !== undefined) {
    try {
      return render(args);
    } catch (error) {
      if (!(error instanceof Unfit)) throw error;
    }
  }
  return { card: "generic", title: name, kind: "other", content: [], locations: [] };
}

// Applied diffs a write or edit recorded in its result's meta; none when anything is off.
function metaDiffs(meta) {
  if (!isObject(meta) || !Array.isArray(meta.get("diffs"))) return [];
  const diffs = [];
  for (const entry of meta.get("diffs")) {
    if (!isObject(entry)) return [];
    const path = entry.get("path");
    const oldText = entry.get("oldText") ?? null;
    const newText = entry.get("newText");
    if (typeof path !== "string" || typeof newText !== "string") return [];
    if (oldText !== null && typeof oldText !== "string") return [];
    diffs.push({ path, oldText, newText });
  }
  return diffs;
}

const joinedText = (content) =>
  content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
const rawResult = (result) => ({ card: "generic", title: null, content: result.content });

const RESULT_VIEWS = {
  bash(args, result) {
    const bash = bashArgs(args);
    const text = joinedText(result.content);
    if (bash.background) {
      return { card: "generic", title: null, content: [textBlock(fenced(text))] };
    }
    return { card: "terminal", title: null, ...splitMarker(text) };
  },
  read: (args, result) => rawResult(result),
  todo: (args, result) => rawResult(result),
  write(args, result) {
    if (result.isError) return null;
    const fields = fieldsOf(args);
    const path = needString(fields, "file_path");
    let diffs = metaDiffs(result.meta);
    if (diffs.length === 0) {
      diffs = [{ path, oldText: null, newText: needString(fields, "content") }];
    }
    return { card: "diff", title: fileTitle("Write", path), diffs };
  },
  edit(args, result) {
    const fields = fieldsOf(args);
    maybeBoolean(fields, "replace_all");
    const path = needString(fields, "file_path");
    needString(fields, "old_string");
    needString(fields, "new_string");
    // Without recorded hunks the applied change is unknown: show the raw content instead.
    const diffs = result.isError ? [] : metaDiffs(result.meta);
    return diffs.length === 0 ? null : { card: "diff", title: fileTitle("Edit", path), diffs };
  },
};

function resultView(call, result) {
  const known = call !== undefined && Object.hasOwn(RESULT_VIEWS, call.name);
  const render = known ? RESULT_VIEWS[call.name] : undefined;
  if (render === undefined) return rawResult(result);
  let view;
  try {
    view = render(call.args, result);
  } catch (error) {
    if (!(error instanceof Unfit)) throw error;
    return rawResult(result);
  }
  if (view === null) return rawResult(result);
  // A terminal result needs a terminal card to belong to; a blank generic one shows the raw.
  if (view.card === "terminal" && call.view.card !== "terminal") return rawResult(result);
  if (view.card === "generic" && (view.content === null || view.content.length === 0)) {
    return { card: "generic", title: view.title, content: result.content };
  }
  return view;
}

// -- ACP wire ------------------------------------------------------------------------------------

const textItem = (text) => ({ type: "content", content: { type: "text", text } });

function blockItem(block) {
  if (block.type === "text") return textItem(block.text);
  const data = block.data;
  const mimeType = block.mimeType;
  const media = block.type === "image" || block.type === "audio";
  if (media && typeof data === "string" && typeof mimeType === "string") {
    const item = { type: block.type, data, mimeType };
    if (block.type === "image" && typeof block.uri === "string") item.uri = block.uri;
    return { type: "content", content: item };
  }
  return textItem(`[${block.type} content]`);
}

function diffItem(diff) {
  const item = { type: "diff", path: diff.path, newText: diff.newText };
  if (diff.oldText !== null) item.oldText = diff.oldText;
  return item;
}

function locationItem(location) {
  const item = { path: location.path };
  if (location.line !== undefined) item.line = new JsonNumber(String(location.line));
  return item;
}

function putList(fields, key, items) {
  if (items.length > 0) fields[key] = items;
}

// The ToolCall fields a card and a permission request share; rawInput is what will run.
function callFields(callId, view, args) {
  const fields = { toolCallId: callId };
  if (view.card === "generic") {
    fields.title = shortTitle(view.title, view.locations[0]?.path);
    fields.kind = view.kind;
    putList(fields, "content", view.content.map(blockItem));
    putList(fields, "locations", view.locations.map(locationItem));
  } else if (view.card === "diff") {
    const paths = [...view.locations, ...view.diffs].map((item) => item.path);
    fields.title = shortTitle(view.title, paths[0]);
    fields.kind = "edit";
    putList(fields, "content", view.diffs.map(diffItem));
    putList(fields, "locations", view.locations.map(locationItem));
  } else {
    // A terminal card, for a client without terminals: the description only, never a terminal.
    fields.title = view.title;
    fields.kind = "execute";
    putList(fields, "content", view.description ? [textItem(view.description)] : []);
  }
  if (args !== null) fields.rawInput = args;
  return fields;
}

function resultUpdate(callId, view, failed) {
  const update = {
    sessionUpdate: "tool_call_update",
    toolCallId: callId,
    status: failed ? "failed" : "completed",
  };
  if (view.card === "generic") {
    if (view.title !== null) update.title = view.title;
    if (view.content !== null) update.content = view.content.map(blockItem);
  } else if (view.card === "terminal") {
    if (view.title !== null) update.title = view.title;
    update.content = [textItem(fenced(view.output ?? ""))];
  } else {
    if (view.title !== null) update.title = shortTitle(view.title, view.diffs[0]?.path);
    update.content = view.diffs.map(diffItem);
  }
  return update;
}

// -- the UI --------------------------------------------------------------------------------------

export class Presenter {
  constructor() {
    this.calls = new Map(); // callId -> {name, args, view} of its latest tool/call
  }

  // Learn the calls of events a UI has already shown (a reopened log), sending nothing.
  remember(events) {
    this.show(events);
  }

  // The ACP messages newly committed `events` send, in log order: [{method, params}].
  show(events) {
    const sent = [];
    for (const event of events) {
      const message = this.messageFor(event);
      if (message !== undefined) sent.push(message);
    }
    return sent;
  }

  messageFor(event) {
    const data = event.data;
    if (event.type === "tool/call") {
      const args = parseArguments(data.arguments);
      const view = callView(data.name, args);
      this.calls.set(data.callId, { name: data.name, args, view });
      const fields = callFields(data.callId, view, args);
      const update = { sessionUpdate: "tool_call", ...fields, status: "in_progress" };
      return { method: "session/update", params: { sessionId: SESSION_ID, update } };
    }
    if (event.type === "approval/asked" && this.calls.has(data.callId)) {
      const { args, view } = this.calls.get(data.callId);
      const toolCall = callFields(data.callId, view, args);
      const params = { sessionId: SESSION_ID, toolCall, options: OPTIONS };
      return { method: "session/request_permission", params };
    }
    if (event.type === "tool/result" && event.surfaceOp === "append") {
      const block = data.message.content[0];
      const callId = data.message.source.callId;
      const result = { content: block.content, isError: block.isError, meta: data.meta ?? null };
      const view = resultView(this.calls.get(callId), result);
      const update = resultUpdate(callId, view, block.isError);
      return { method: "session/update", params: { sessionId: SESSION_ID, update } };
    }
    return undefined;
  }
}
