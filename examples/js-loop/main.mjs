// A second implementation of loopspec's tool-call loop, driven over JSON lines:
//
//   node examples/js-loop/main.mjs
//
// Each line on stdin is one driver message (reset, command, shutdown); each gets exactly one
// line back on stdout. Diagnostics go to stderr, which the driver shows but never parses.
// A line that is not a protocol message at all ends the process (exit 2): there is no way to
// answer it. A command that cannot be decoded is refused with PROTO-1 and changes nothing.

import { createInterface } from "node:readline";

import { parse, stringify } from "./json.mjs";
import { Session } from "./loop.mjs";
import {
  decodeCommand,
  decodeConfig,
  observed,
  PROTOCOL_VERSION,
  ProtocolError,
  ready,
} from "./protocol.mjs";

let session; // created by each reset

function fatal(message, code = 2) {
  process.stderr.write(`js-loop: ${message}\n`);
  process.exit(code);
}

function answer(message) {
  process.stdout.write(`${stringify(message)}\n`);
}

function handle(line) {
  let message;
  try {
    message = parse(line);
  } catch (error) {
    fatal(`not a JSON line (${error.message}): ${line.slice(0, 200)}`);
  }
  const type = message instanceof Map ? message.get("type") : undefined;
  if (type === "reset") {
    if (Number(message.get("protocol")) !== PROTOCOL_VERSION) {
      fatal(`unsupported protocol version ${stringify(message.get("protocol") ?? null)}`);
    }
    try {
      session = new Session(decodeConfig(message.get("config")));
    } catch (error) {
      fatal(`bad configuration: ${error.message}`);
    }
    answer(ready());
  } else if (type === "command") {
    const seq = Number(message.get("seq"));
    if (!Number.isSafeInteger(seq)) fatal("a command needs an integer seq");
    let command;
    try {
      if (session === undefined) throw new ProtocolError("no session: send reset first");
      command = decodeCommand(message.get("command"));
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      answer(observed(seq, { accepted: false, rule: "PROTO-1", message: error.message }));
      return;
    }
    answer(observed(seq, session.apply(command)));
  } else if (type === "shutdown") {
    answer({ type: "bye" });
    process.exit(0);
  } else {
    fatal(`unknown message type ${stringify(type ?? null)}`);
  }
}

const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", (line) => {
  try {
    handle(line);
  } catch (error) {
    // A bug in this loop, not in the driver: say so loudly and stop.
    fatal(`internal error: ${error.stack ?? error}`, 70);
  }
});
input.on("close", () => process.exit(0));
