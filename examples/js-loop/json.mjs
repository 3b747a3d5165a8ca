// JSON the way the reference model sees it.
//
// The model is written in Python, and three of its outputs depend on how Python reads and
// writes JSON:
//   - whether a tool call's raw `arguments` form an object (Python's json.loads accepts NaN and
//     Infinity, but the model then refuses them, and -0.0 or 1e400, as not lossless);
//   - the text of a rewritten call's arguments (`json.dumps(..., separators=(",", ":"),
//     ensure_ascii=False)`): key order as written, `5.0` stays `5.0`, big integers stay exact;
//   - error texts that quote names with Python's repr() and trim with str.strip().
// JS's JSON.parse loses key order (integer-like keys are hoisted), the difference between 5 and
// 5.0, and big integers, so values read from the wire are kept as a small tree instead: objects
// are Maps, numbers are JsonNumbers carrying Python's canonical text.

export class JsonNumber {
  constructor(text) {
    this.text = text; // what Python's json.dumps writes for this number
  }

  valueOf() {
    return Number(this.text);
  }
}

export class JsonError extends Error {}

// Nesting beyond this is refused rather than risking the stack (see the report on the model).
const MAX_DEPTH = 5000;
const PYTHON_INT_DIGITS = 4300;
const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;

// Parse JSON text into the tree described above. Throws JsonError for anything Python's
// json.loads refuses, and also for NaN, infinities and -0.0, which the model cannot freeze.
export function parse(text) {
  let pos = 0;
  const fail = (why) => {
    throw new JsonError(`${why} at offset ${pos}`);
  };
  const skip = () => {
    while (pos < text.length && WHITESPACE.has(text[pos])) pos += 1;
  };
  const literal = (word, value) => {
    if (!text.startsWith(word, pos)) fail("unexpected character");
    pos += word.length;
    return value;
  };

  function string() {
    pos += 1; // opening quote
    let out = "";
    for (;;) {
      const ch = text[pos];
      if (ch === undefined) fail("unterminated string");
      if (ch === '"') {
        pos += 1;
        return out;
      }
      if (ch < " ") fail("control character in string");
      if (ch !== "\\") {
        out += ch;
        pos += 1;
        continue;
      }
      const esc = text[pos + 1];
      if (esc === "u") {
        const hex = text.slice(pos + 2, pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("bad \\u escape");
        out += String.fromCharCode(parseInt(hex, 16));
        pos += 6;
      } else if (esc in ESCAPES) {
        out += ESCAPES[esc];
        pos += 2;
      } else {
        fail("bad escape");
      }
    }
  }

  function number() {
    NUMBER.lastIndex = pos;
    const match = NUMBER.exec(text);
    if (match === null) fail("bad number");
    pos = NUMBER.lastIndex;
    const lexeme = match[0];
    if (match[1] === undefined && match[2] === undefined) {
      // CPython refuses to read integers of more than 4300 digits (sys.int_max_str_digits),
      // so to the model such text is not JSON at all.
      if (lexeme.replace("-", "").length > PYTHON_INT_DIGITS) fail("integer too long");
      return new JsonNumber(BigInt(lexeme).toString()); // a Python int: exact, "-0" is 0
    }
    const value = Number(lexeme);
    if (!Number.isFinite(value) || Object.is(value, -0)) fail("number is not lossless JSON");
    return new JsonNumber(pythonFloatText(value));
  }

  function value(depth) {
    if (depth > MAX_DEPTH) fail("nesting too deep");
    skip();
    const ch = text[pos];
    if (ch === "{") {
      pos += 1;
      const map = new Map();
      skip();
      if (text[pos] === "}") {
        pos += 1;
        return map;
      }
      for (;;) {
        skip();
        if (text[pos] !== '"') fail("expected a string key");
        const key = string();
        skip();
        if (text[pos] !== ":") fail("expected ':'");
        pos += 1;
        map.set(key, value(depth + 1)); // a repeated key keeps its first place, last value
        skip();
        if (text[pos] === ",") pos += 1;
        else if (text[pos] === "}") {
          pos += 1;
          return map;
        } else fail("expected ',' or '}'");
      }
    }
    if (ch === "[") {
      pos += 1;
      const items = [];
      skip();
      if (text[pos] === "]") {
        pos += 1;
        return items;
      }
      for (;;) {
        items.push(value(depth + 1));
        skip();
        if (text[pos] === ",") pos += 1;
        else if (text[pos] === "]") {
          pos += 1;
          return items;
        } else fail("expected ',' or ']'");
      }
    }
    if (ch === '"') return string();
    if (ch === "t") return literal("true", true);
    if (ch === "f") return literal("false", false);
    if (ch === "n") return literal("null", null);
    // Python reads these; the model then refuses them as not lossless.
    if (ch === "N" || ch === "I" || text.startsWith("-I", pos)) fail("number is not lossless JSON");
    if (ch === "-" || (ch >= "0" && ch <= "9")) return number();
    return fail("unexpected character");
  }

  const result = value(0);
  skip();
  if (pos !== text.length) fail("extra data");
  return result;
}

// Python's repr() of a float: shortest round-trip digits, fixed notation for exponents in
// [-4, 16), otherwise d.ddde+XX.
function pythonFloatText(value) {
  const [mantissa, exp] = value.toExponential().split("e");
  const exponent = Number(exp);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = negative ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const mag = String(Math.abs(exponent)).padStart(2, "0");
    return `${sign}${head}e${exponent < 0 ? "-" : "+"}${mag}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const fraction = digits.slice(exponent + 1) || "0";
  return `${sign}${whole}.${fraction}`;
}

export function isObject(value) {
  return value instanceof Map;
}

// Python's json.dumps(value, separators=(",", ":"), ensure_ascii=False): the canonical text of
// a rewritten call's arguments, compared byte for byte with the model's.
export function pythonDumps(value) {
  if (value instanceof Map) {
    const members = [...value].map(([k, v]) => `${pythonString(k)}:${pythonDumps(v)}`);
    return `{${members.join(",")}}`;
  }
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(",")}]`;
  if (value instanceof JsonNumber) return value.text;
  if (typeof value === "string") return pythonString(value);
  if (typeof value === "number") return String(value);
  return value === null ? "null" : String(value);
}

const PY_NAMED = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

function pythonString(text) {
  return `"${text.replace(/["\\\u0000-\u001f]/g, (ch) => PY_NAMED[ch] ?? unicodeEscape(ch))}"`;
}

function unicodeEscape(ch) {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

// The protocol's own serializer: like JSON.stringify, but it understands the tree above and
// writes pure ASCII (every non-ASCII UTF-16 unit escaped), so lone surrogates survive the trip.
export function stringify(value) {
  if (value instanceof Map) {
    return `{${[...value].map(([k, v]) => `${asciiString(k)}:${stringify(v)}`).join(",")}}`;
  }
  if (Array.isArray(value)) return `[${value.map(stringify).join(",")}]`;
  if (value instanceof JsonNumber) return value.text;
  if (typeof value === "string") return asciiString(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new JsonError("cannot write a non-finite number");
    return String(value);
  }
  if (value === null || typeof value === "boolean") return String(value);
  const members = Object.entries(value).filter(([, v]) => v !== undefined);
  return `{${members.map(([k, v]) => `${asciiString(k)}:${stringify(v)}`).join(",")}}`;
}

function asciiString(text) {
  const escape = (ch) => PY_NAMED[ch] ?? unicodeEscape(ch);
  return `"${text.replace(/["\\\u0000-\u001f\u007f-\uffff]/g, escape)}"`;
}

// Python's repr() of a str, as the model's messages quote names and keys.
export function pythonRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code > 0x7f && !PRINTABLE.test(ch)) out += pythonCodeEscape(code);
    else out += ch;
  }
  return out + quote;
}

// Python's str.isprintable(): everything but Other (C*) and Separator (Z*) except the space.
const PRINTABLE = /^[^\p{C}\p{Z}]$/u;

function pythonCodeEscape(code) {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\U${code.toString(16).padStart(8, "0")}`;
}

// Python's str.strip() === "": the whitespace str.isspace() knows, which is not JS's trim().
const PY_SPACE =
  /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

export function isBlank(text) {
  return PY_SPACE.test(text);
}
