// Random voice markup documents made with the platform's own helper
// library (`twilio` on npm, `VoiceResponse`), over its whole vocabulary as
// its type definitions declare it, for a byte-for-byte comparison with
// ccfn's `VoiceResponse`.
//
//   node generate.js OUT.jsonl [COUNT] [SEED]
//
// Each line: {"doc": <tree>, "xml": <what the helper wrote>}; a tree node
// is {"method", "class", "attrs": [[name, value], ...], "text"?,
// "children": [...]}, children in call order; a child {"text": ".."} is an
// `addText` call, and a child of the response {"comment": "inside" |
// "before" | "after", "text": ".."} a `comment`, `commentBefore` or
// `commentAfter` call. Documents whose strings the helper refuses
// (characters XML 1.0 cannot hold, and `--` in a comment: it throws) are
// not written; `refused` counts them.
"use strict";

const fs = require("fs");
const VoiceResponse = require("twilio/lib/twiml/VoiceResponse");

const [out, countArg, seedArg] = process.argv.slice(2);
if (!out) {
  console.error("usage: node generate.js OUT.jsonl [COUNT] [SEED]");
  process.exit(2);
}
const COUNT = Number(countArg || 1000);
let seed = Number(seedArg || 20261123) >>> 0;

// mulberry32: small, seeded, the same on every machine.
function random() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const below = (n) => Math.floor(random() * n);
const pick = (items) => items[below(items.length)];

// ---- The vocabulary, read from the helper's type definitions.
const dts = fs.readFileSync(require.resolve("twilio/lib/twiml/VoiceResponse.d.ts"), "utf8");

// Enumerations: type X = "a" | "b";
const enums = {};
for (const m of dts.matchAll(/\n\s+type (\w+) = ([^;]+);/g)) {
  enums[m[1]] = [...m[2].matchAll(/"([^"]*)"/g)].map((v) => v[1]);
}
// Attribute interfaces (merged when declared more than once).
const interfaces = {};
for (const m of dts.matchAll(/export interface (\w+)Attributes \{([\s\S]*?)\n\s+\}/g)) {
  const fields = (interfaces[m[1] + "Attributes"] ||= new Map());
  // Names are identifiers or quoted ("xml:lang", "interpret-as").
  for (const f of m[2].matchAll(/\n\s+(\w+|"[\w:-]+")\??: ([^;]+);/g)) {
    fields.set(f[1].replace(/"/g, ""), f[2].trim());
  }
}
// Classes and the children their methods add.
const classes = {};
const classRe = /(?:declare class (VoiceResponse)|export class (\w+)) extends TwiML \{([\s\S]*?)\n    ?\}/g;
for (const m of dts.matchAll(classRe)) {
  const name = m[1] || m[2];
  const methods = new Map();
  const sig = /\n\s+(\w+)\(attributes\??: ((?:VoiceResponse\.)?\w+)(?:, (\w+)(\?)?: string)?\): VoiceResponse\.(\w+);/g;
  for (const s of m[3].matchAll(sig)) {
    const iface = s[2].replace("VoiceResponse.", "");
    methods.set(s[1], {
      method: s[1],
      attrs: iface === "object" ? null : iface,
      text: s[3] ? (s[4] ? "optional" : "required") : "none",
      class: s[5],
    });
  }
  classes[name] = [...methods.values()];
}

// The type definitions must say what the library has: every class the
// definitions declare is the library's, with exactly its methods (the
// response's comment methods aside: they add no element, and are called
// below on their own), so that a change in the definitions' format cannot
// shrink the vocabulary unnoticed.
for (const [name, methods] of Object.entries(classes)) {
  const cls = name === "VoiceResponse" ? VoiceResponse : VoiceResponse[name];
  if (typeof cls !== "function") throw new Error(`the definitions declare ${name}, the library has no such class`);
  const own = Object.getOwnPropertyNames(cls.prototype).filter(
    (m) => m !== "constructor" && !(name === "VoiceResponse" && m.startsWith("comment"))
  );
  const declared = methods.map((m) => m.method);
  const missing = own.filter((m) => !declared.includes(m));
  const extra = declared.filter((m) => !own.includes(m));
  if (missing.length || extra.length) {
    throw new Error(`${name}: the definitions miss [${missing}] and declare [${extra}] the library lacks`);
  }
}
const classCount = Object.keys(VoiceResponse).filter((k) => typeof VoiceResponse[k] === "function").length + 1;
if (classCount !== Object.keys(classes).length) {
  throw new Error(`the library has ${classCount} classes, the definitions declare ${Object.keys(classes).length}`);
}
let fieldLines = 0;
for (const m of dts.matchAll(/export interface \w+Attributes \{([\s\S]*?)\n\s+\}/g)) {
  fieldLines += (m[1].match(/\?: /g) || []).length;
}
const parsedFields = [...dts.matchAll(/export interface \w+Attributes \{([\s\S]*?)\n\s+\}/g)]
  .map((m) => [...m[1].matchAll(/\n\s+(\w+|"[\w:-]+")\??: ([^;]+);/g)].length)
  .reduce((a, b) => a + b, 0);
if (fieldLines !== parsedFields) {
  throw new Error(`${fieldLines} attribute lines in the definitions, ${parsedFields} read`);
}

// ---- Values with every escaping hazard.
const HAZARDS = [
  "", "&", "<", ">", "\"", "'", "&amp;", "a & b < c > d", "\"quoted\" 'single'",
  "line\nbreak", "tab\there", "carriage\rreturn", "\r\n", " leading and trailing ",
  "é è ü ß", "日本語", "😀 emoji", "\u00a0nbsp", "\u2028sep", "]]>", "<![CDATA[x]]>",
  "<Say>not a verb</Say>", "&#x41;", "https://example.com/a?b=1&c=2", "+15551230000",
  // Control characters XML 1.0 allows, and other odd ones it allows.
  "del\u007f", "nel\u0085", "c1\u009f", "\ufeffbom", "\ufffd", "\u{10ffff}",
];
const REFUSED = ["\u0001", "\u001f", "\u0000", "\ufffe", "\uffff", "\u000b"];
function text() {
  const parts = [];
  for (let n = 1 + below(3); n > 0; n--) parts.push(pick(HAZARDS));
  if (random() < 0.03) parts.push(pick(REFUSED));
  return parts.join(pick(["", " ", "\n"]));
}
// Comment text: the same hazards and hyphens next to what could close or
// open a comment. Two hyphens together (which the helper refuses) leave
// the document out; ccfn's writing of them is tested in Rust.
const COMMENT_HAZARDS = ["-", "a-", "-b", "->", "<!-", "- -", "- ", "x->y"];
function commentText() {
  const parts = [];
  for (let n = 1 + below(3); n > 0; n--) parts.push(random() < 0.5 ? pick(COMMENT_HAZARDS) : pick(HAZARDS));
  if (random() < 0.03) parts.push(pick(REFUSED));
  return parts.join(pick(["", " ", "\n"]));
}
const COMMENT_METHODS = { inside: "comment", before: "commentBefore", after: "commentAfter" };
// Where ccfn types what the helper leaves as a string: HTTP methods are
// `GET`/`POST` (`Method`), `speechTimeout` is `auto` or whole seconds
// (`SpeechTimeout`). Numbers are whole and not negative (`u32`).
function value(type, name) {
  if ((name === "method" || /Method$/.test(name)) && (type === "string" || /CallbackMethod$/.test(type))) {
    const v = pick(["GET", "POST"]);
    used.add(`${type}=${v}`);
    return v;
  }
  if (name === "speechTimeout") return pick(["auto", "0", "3", "60"]);
  const array = type.endsWith("[]");
  const base = array ? type.slice(0, -2) : type;
  const one = () => {
    if (enums[base]) {
      // Each value at least once, then at random.
      const unused = enums[base].filter((v) => !used.has(`${base}=${v}`));
      const v = unused.length > 0 && random() < 0.5 ? pick(unused) : pick(enums[base]);
      used.add(`${base}=${v}`);
      return v;
    }
    if (base === "boolean") return random() < 0.5;
    if (base === "number") return pick([0, 1, 7, 30, 3600, 4294967295]);
    return text();
  };
  if (!array) return one();
  // Sometimes empty: the helper writes `[]` as an empty attribute.
  const values = [];
  for (let n = below(4); n > 0; n--) values.push(one());
  return values;
}

// ---- A random document.
const MAX_DEPTH = 4;
// What has been used so far: "Class.method" and "Interface.attribute".
let used = new Set();
function attributesOf(iface) {
  const fields = [...(interfaces[iface] || new Map()).entries()];
  const attrs = [];
  for (const [name, type] of fields) {
    // Each attribute at least once, then at random.
    const key = iface + "." + name;
    if (random() < 0.35 || !used.has(key)) {
      used.add(key);
      attrs.push([name, value(type, name)]);
    }
  }
  // Now and then an attribute the helper has no name for (one the
  // platform adds later), marked so that ccfn sets it with `attr`.
  if (random() < 0.05) attrs.push([pick(EXTRA_NAMES), text(), "extra"]);
  // The helper writes them in the order given: shuffle.
  for (let i = attrs.length - 1; i > 0; i--) {
    const j = below(i + 1);
    [attrs[i], attrs[j]] = [attrs[j], attrs[i]];
  }
  return attrs;
}
const TEXT_HOLDERS = new Set(["Say", "SsmlEmphasis", "SsmlLang", "SsmlP", "SsmlProsody", "SsmlS", "SsmlW"]);
// Names for what the helper does not know, through `addChild` (an element)
// or extra attributes.
const EXTRA_NAMES = ["futureAttribute", "x-data", "ns:name", "_private", "a.b"];
const EXTRA_TAGS = ["FutureVerb", "Future-Noun", "ns:Tag"];

function grow(node, cls, helper, depth) {
  const methods = classes[cls] || [];
  let n = depth === 0 ? 1 + below(5) : below(depth >= MAX_DEPTH ? 1 : 3);
  for (; n > 0; n--) {
    // The response's comments, among its verbs.
    if (cls === "VoiceResponse" && random() < 0.15) {
      const place = pick(Object.keys(COMMENT_METHODS));
      const t = commentText();
      used.add(cls + "." + COMMENT_METHODS[place]);
      node.children.push({ comment: place, text: t });
      helper[COMMENT_METHODS[place]](t);
      continue;
    }
    // `addText` is every element's; it makes sense in text holders.
    const textual = cls !== "VoiceResponse" && (TEXT_HOLDERS.has(cls) || methods.length === 0);
    if (cls !== "VoiceResponse" && random() < (textual ? 0.25 : 0.03)) {
      const t = text();
      helper.addText(t);
      node.children.push({ text: t });
      continue;
    }
    if (methods.length === 0 || random() < 0.02) {
      if (methods.length === 0 && random() < 0.8) break;
      // `addChild`: an element the helper has no method for.
      const tag = pick(EXTRA_TAGS);
      const attrs = random() < 0.5 ? [[pick(EXTRA_NAMES), text()]] : [];
      const child = { method: "addChild", tag, attrs, children: [] };
      const made = helper.addChild(tag, Object.fromEntries(attrs));
      node.children.push(child);
      grow(child, "GenericNode", made, depth + 1);
      continue;
    }
    // Every method soon (the deepest are rarely reached by chance), then
    // at random.
    const unused = methods.filter((m) => !used.has(cls + "." + m.method));
    const m = unused.length > 0 && random() < 0.5 ? pick(unused) : pick(methods);
    used.add(cls + "." + m.method);
    const attrs = m.attrs ? attributesOf(m.attrs) : [];
    const child = { method: m.method, class: m.class, attrs, children: [] };
    const object = Object.fromEntries(attrs);
    let made;
    if (m.text === "none") {
      made = helper[m.method](object);
    } else {
      const give = m.text === "required" || random() < 0.8;
      // Both forms of an optional text: ccfn has a method for each.
      if (m.text === "optional") used.add(`${cls}.${m.method}(${give ? "text" : ""})`);
      if (give) child.text = text();
      made = give ? helper[m.method](object, child.text) : helper[m.method](object);
    }
    node.children.push(child);
    grow(child, m.class, made, depth + 1);
  }
}

const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;
const stream = fs.createWriteStream(out);
// First line: the vocabulary, for the Rust test to compare with its own.
const vocabulary = {};
for (const [cls, methods] of Object.entries(classes)) {
  vocabulary[cls] = {
    attributes: [...(interfaces[cls + "Attributes"] || new Map()).keys()],
    children: [...new Set(methods.map((m) => m.method))],
    // The methods whose text the helper makes optional.
    optional: methods.filter((m) => m.text === "optional").map((m) => m.method),
  };
}
stream.write(JSON.stringify({ vocabulary }) + "\n");
let written = 0;
let refused = 0;
// Every method and attribute of the vocabulary, in the documents kept.
const everything = [
  ...Object.entries(classes).flatMap(([cls, ms]) => ms.map((m) => cls + "." + m.method)),
  ...Object.entries(classes).flatMap(([cls, ms]) =>
    ms.filter((m) => m.text === "optional").flatMap((m) => [`${cls}.${m.method}()`, `${cls}.${m.method}(text)`])
  ),
  ...Object.values(COMMENT_METHODS).map((m) => "VoiceResponse." + m),
  ...Object.entries(interfaces).flatMap(([iface, fields]) => [...fields.keys()].map((n) => iface + "." + n)),
];
// Every value of every enumeration an attribute uses, but for the long
// lists (voices, languages, ring tones: more than 30 values) that ccfn
// takes as free text, where one value is as good as another.
const enumsUsed = new Set(
  Object.values(interfaces).flatMap((fields) => [...fields.values()].map((t) => t.replace(/\[\]$/, "")))
);
for (const [name, values] of Object.entries(enums)) {
  if (enumsUsed.has(name) && values.length <= 30) everything.push(...values.map((v) => `${name}=${v}`));
}
const unusedYet = () => everything.filter((key) => !used.has(key));
// At least COUNT documents, and more until everything has been used.
while (written < COUNT || (unusedYet().length > 0 && written < 20 * COUNT)) {
  const helper = new VoiceResponse();
  const doc = { method: "response", class: "VoiceResponse", attrs: [], children: [] };
  let xml;
  // What a refused document used counts as unused again.
  const usedBefore = new Set(used);
  try {
    // The helper throws on a character XML cannot hold, when it is given
    // or when the document is written.
    grow(doc, "VoiceResponse", helper, 0);
    xml = helper.toString();
    // In attribute values it does not throw but writes them, and the
    // document is not XML (ccfn writes U+FFFD there too): left out alike.
    if (NOT_XML.test(xml)) throw new Error("Invalid character in an attribute value");
  } catch (error) {
    const message = String(error.message);
    if (!message.startsWith("Invalid character") && !message.startsWith("Comment text cannot contain double-hypen")) {
      throw error;
    }
    refused++;
    used = usedBefore;
    continue;
  }
  stream.write(JSON.stringify({ doc, xml }) + "\n");
  written++;
}
stream.end();
if (unusedYet().length > 0) {
  console.error(`never used in ${written} documents: ${unusedYet().join(", ")}`);
  process.exit(1);
}
const methodCount = Object.values(classes).reduce((n, ms) => n + ms.length, 0);
console.log(
  `${written} documents (${refused} refused by the helper), ` +
    `${Object.keys(classes).length} classes, ${methodCount} child methods, ` +
    `${Object.keys(interfaces).length} attribute sets, ${Object.keys(enums).length} enumerations`
);
