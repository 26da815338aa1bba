/*
 * verify.js: checks a published adjutant journal in the reader's browser.
 *
 * An independent implementation of docs/journal-v1.md (the journal file,
 * its canonical-JSON hash chain, the public export) and docs/dice-v1.md
 * (commitment chains, seeds, ChaCha20, die / shuffle / pool draws), beside
 * the Rust one (src/audit.rs, src/export.rs, src/dice/) and the Python one
 * (scripts/verify_dice.py, whose journal mode this file follows step by
 * step). Hand-written, no dependencies, no build step; it shares no code
 * with either.
 *
 * It checks:
 *   - every entry's hash, SHA-256(prev + "\n" + canonical JSON of the entry
 *     without `hash`), and that `seq` runs 1, 2, ... and each `prev` is the
 *     hash before (64 zeros for the first);
 *   - that every revealed link of every stream hashes back, along its chain,
 *     to the anchor committed in `created` (or in a `renewed` entry);
 *   - that the salts of each step are the last ones given (when the export
 *     holds them), and every draw the journal shows regenerates exactly from
 *     its stream's seed;
 *   - rollbacks (the reopened step takes the next unused number, salts are
 *     void, an ended game reopens) and `withheld` stubs of a public export.
 * A public export of a game in progress (`export.redacted`) holds only the
 * public stream's links and draws: those are checked, the rest is not there
 * to check until the game ends. It does not replay the rules: that the rules
 * asked for exactly these draws is for `adjutant audit` to show.
 *
 * Use: AdjutantVerify.verify(text) -> Promise of { verdict, draws, ... }.
 */
(function (root) {
  "use strict";

  const GENESIS = "0".repeat(64);
  const FORMAT_V1 = "adjutant-journal-1";
  const SCHEME = "adjutant/dice-v1";
  const utf8 = new TextEncoder();

  // ------------------------------------------------------ the TOML subset

  /** A parse error, with the number of the [[entry]] it fell in. */
  class TomlError extends Error {
    constructor(message, entry) {
      super(message);
      this.entry = entry;
    }
  }

  // Tables have no prototype, so a key such as "__proto__" or
  // "constructor" is data like any other.
  const newTable = () => Object.create(null);
  const isTable = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
  const has = (t, k) => Object.prototype.hasOwnProperty.call(t, k);

  /**
   * Parse TOML as adjutant writes it (and as a TOML library would write
   * the same data): tables, arrays of tables, dotted keys, inline tables,
   * arrays, the four kinds of strings, integers and booleans. Floats and
   * dates are refused: a journal never holds one, and its hash has no
   * spelling for them.
   */
  function parseToml(text) {
    const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    const doc = newTable();
    const headed = new Set(); // tables given a [header]: not to be opened twice
    const inline = new Set(); // inline tables: closed once written
    const grown = new Set(); // arrays made by [[header]]: the only ones it may extend
    let i = 0;
    let current = doc;

    const fail = (why) => {
      const line = src.slice(0, i).split("\n").length;
      throw new TomlError(`line ${line}: ${why}`, Array.isArray(doc.entry) ? doc.entry.length : 0);
    };
    const at = (s) => src.startsWith(s, i);
    const skipSpace = () => { while (src[i] === " " || src[i] === "\t") i++; };
    const skipComment = () => { if (src[i] === "#") while (i < src.length && src[i] !== "\n") i++; };
    function endOfLine() {
      skipSpace();
      skipComment();
      if (at("\r\n")) i += 2;
      else if (src[i] === "\n") i++;
      else if (i < src.length) fail(`unexpected ${JSON.stringify(src[i])} where the line should end`);
    }
    function skipBlank() { // white space, line ends and comments: inside arrays
      for (;;) {
        skipSpace();
        skipComment();
        if (src[i] === "\n") i++;
        else if (at("\r\n")) i += 2;
        else return;
      }
    }

    // Keys: bare, "basic" or 'literal', joined by dots.
    function key() {
      if (src[i] === '"') return at('"""') ? fail("a key may not be a multi-line string") : basicString();
      if (src[i] === "'") return at("'''") ? fail("a key may not be a multi-line string") : literalString();
      const m = /[A-Za-z0-9_-]+/y;
      m.lastIndex = i;
      const k = m.exec(src);
      if (!k) fail("a key was expected");
      i += k[0].length;
      return k[0];
    }
    function dottedKey() {
      const keys = [];
      for (;;) {
        skipSpace();
        keys.push(key());
        skipSpace();
        if (src[i] !== ".") return keys;
        i++;
      }
    }

    // The table a path leads to from `t`, creating the tables it lacks; an
    // array of tables on the way stands for its last table.
    function descend(t, keys) {
      for (const k of keys) {
        if (!has(t, k)) t[k] = newTable();
        let v = t[k];
        if (Array.isArray(v) && grown.has(v)) v = v[v.length - 1];
        if (!isTable(v) || inline.has(v)) fail(`${k} is not a table that can be added to`);
        t = v;
      }
      return t;
    }

    function header() {
      const many = at("[[");
      i += many ? 2 : 1;
      const keys = dottedKey();
      if (!at(many ? "]]" : "]")) fail(`${many ? "]]" : "]"} expected after a table's name`);
      i += many ? 2 : 1;
      const parent = descend(doc, keys.slice(0, -1));
      const last = keys[keys.length - 1];
      if (many) {
        if (!has(parent, last)) grown.add((parent[last] = []));
        if (!grown.has(parent[last])) fail(`${last} is not an array of tables`);
        current = newTable();
        parent[last].push(current);
      } else {
        if (Array.isArray(parent[last])) fail(`${keys.join(".")} is an array, not a table`);
        current = descend(parent, [last]);
        if (headed.has(current)) fail(`table ${keys.join(".")} defined twice`);
        headed.add(current);
      }
    }

    function keyValue(t) {
      const keys = dottedKey();
      if (src[i] !== "=") fail("= expected after a key");
      i++;
      skipSpace();
      const target = descend(t, keys.slice(0, -1));
      const last = keys[keys.length - 1];
      if (has(target, last)) fail(`key ${keys.join(".")} defined twice`);
      target[last] = value();
    }

    function value() {
      const c = src[i];
      if (c === '"') return at('"""') ? multiLine('"""', true) : basicString();
      if (c === "'") return at("'''") ? multiLine("'''", false) : literalString();
      if (c === "[") return array();
      if (c === "{") return inlineTable();
      if (at("true")) return (i += 4), true;
      if (at("false")) return (i += 5), false;
      return integer();
    }

    function integer() { // decimal, as adjutant writes them
      const m = /[+-]?(?:0|[1-9](?:_?[0-9])*)/y;
      m.lastIndex = i;
      const r = m.exec(src), next = src[i + (r ? r[0].length : 0)];
      if (!r || !(next === undefined || " \t\r\n,]}#".includes(next))) {
        if (/^[+-]?(?:inf|nan|[0-9_]+[.eE:-])/.test(src.slice(i, i + 40))) fail("a float or a date: a journal never holds one");
        fail("a value was expected");
      }
      i += r[0].length;
      const n = Number(r[0].replace(/_/g, ""));
      if (!Number.isSafeInteger(n)) fail(`integer ${r[0]} is beyond what this verifier reads exactly`);
      return n === 0 ? 0 : n; // never -0
    }

    const ESCAPES = { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", '"': '"', "\\": "\\" };
    function escape() { // at the backslash
      const c = src[i + 1];
      if (has(ESCAPES, c)) return (i += 2), ESCAPES[c];
      const len = c === "u" ? 4 : c === "U" ? 8 : 0;
      const h = src.slice(i + 2, i + 2 + len);
      if (!len || !/^[0-9A-Fa-f]+$/.test(h) || h.length !== len) fail(`bad escape \\${c || ""}`);
      const cp = parseInt(h, 16);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) fail(`\\${c}${h} is not a Unicode scalar value`);
      i += 2 + len;
      return String.fromCodePoint(cp);
    }
    // TOML allows no control character but tab inside a string.
    const control = (ch) => ch !== "\t" && (ch < " " || ch === "\x7f");

    function basicString() {
      let out = "";
      for (i++; src[i] !== '"'; ) {
        const ch = src[i];
        if (ch === undefined || ch === "\n" || ch === "\r") fail("a string does not end on its line");
        if (ch === "\\") out += escape();
        else if (control(ch)) fail("a control character inside a string");
        else (out += ch), i++;
      }
      i++;
      return out;
    }

    function literalString() {
      const end = src.indexOf("'", i + 1);
      const s = src.slice(i + 1, end);
      if (end < 0 || /[\r\n]/.test(s)) fail("a string does not end on its line");
      if ([...s].some(control)) fail("a control character inside a string");
      i = end + 1;
      return s;
    }

    // """…""" or '''…''': a line end right after the opening is dropped; up
    // to two quotes may precede the closing three.
    function multiLine(q, escapes) {
      i += 3;
      if (at("\r\n")) i += 2;
      else if (src[i] === "\n") i++;
      let out = "";
      for (;;) {
        if (i >= src.length) fail("a multi-line string does not end");
        if (at(q)) {
          let n = 3;
          while (src[i + n] === q[0]) n++;
          if (n > 5) fail("too many quotes at the end of a string");
          out += q[0].repeat(n - 3);
          i += n;
          return out;
        }
        const ch = src[i];
        if (escapes && ch === "\\" && lineEndingBackslash()) {
          while (i < src.length && " \t\r\n".includes(src[i])) i++; // the white space up to the next text goes
        } else if (escapes && ch === "\\") out += escape();
        else if (at("\r\n")) (out += "\n"), (i += 2);
        else if (ch !== "\n" && control(ch)) fail("a control character inside a string");
        else (out += ch), i++;
      }
    }

    function lineEndingBackslash() { // at a backslash: is it the last thing on its line?
      let j = i + 1;
      while (src[j] === " " || src[j] === "\t") j++;
      if (src[j] !== "\n" && !src.startsWith("\r\n", j)) return false;
      i = j;
      return true;
    }

    function array() {
      const out = [];
      i++;
      for (;;) {
        skipBlank();
        if (src[i] === "]") return i++, out;
        out.push(value());
        skipBlank();
        if (src[i] === ",") i++;
        else if (src[i] !== "]") fail(", or ] expected in an array");
      }
    }

    function inlineTable() {
      const t = newTable();
      inline.add(t);
      i++;
      skipSpace();
      if (src[i] === "}") return i++, t;
      for (;;) {
        keyValue(t);
        skipSpace();
        if (src[i] === "}") return i++, t;
        if (src[i] !== ",") fail(", or } expected in an inline table");
        i++;
      }
    }

    while (i < src.length) {
      skipSpace();
      if (src[i] === "[") header();
      else if (src[i] !== "#" && src[i] !== "\n" && src[i] !== "\r" && i < src.length) keyValue(current);
      endOfLine();
    }
    return doc;
  }

  // ------------------------------------------------------ canonical JSON

  /** Compare strings by UTF-8 bytes, which is code point order (plain
   *  `<` on JS strings compares UTF-16 units and differs above U+FFFF). */
  function byUtf8(a, b) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const x = a.codePointAt(i), y = b.codePointAt(i);
      if (x !== y) return x - y;
      if (x > 0xffff) i++;
    }
    return a.length - b.length;
  }

  const JSON_ESCAPES = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r" };
  const jsonString = (s) => '"' + s.replace(/["\\\u0000-\u001f]/g,
    (c) => JSON_ESCAPES[c] || "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")) + '"';

  /** docs/journal-v1.md, "The hash": RFC 8785 for the values a journal holds. */
  function canonicalJson(v) {
    if (typeof v === "string") return jsonString(v);
    if (typeof v === "boolean") return v ? "true" : "false";
    if (Number.isSafeInteger(v)) return String(v);
    if (Array.isArray(v)) return "[" + v.map(canonicalJson).join(",") + "]";
    if (isTable(v)) {
      return "{" + Object.keys(v).sort(byUtf8).map((k) => jsonString(k) + ":" + canonicalJson(v[k])).join(",") + "}";
    }
    throw new Error(`a value journal-1 does not allow: ${String(v)}`);
  }

  // ------------------------------------------------------------ SHA-256

  const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  /** 32 bytes from 64 lowercase hex digits, or null. */
  const unhex = (h) => (typeof h === "string" && /^[0-9a-f]{64}$/.test(h)
    ? Uint8Array.from(h.match(/../g), (x) => parseInt(x, 16)) : null);
  const sameBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

  /** SHA-256 by the browser's WebCrypto; by sha256js below where there is
   *  none (a page served over plain http is not a secure context). */
  async function sha256(bytes) {
    const subtle = root.crypto && root.crypto.subtle;
    if (subtle) return new Uint8Array(await subtle.digest("SHA-256", bytes));
    return sha256js(bytes);
  }

  const K256 = [];
  for (let n = 2; K256.length < 64; n++) { // the first 64 primes' cube roots
    if ([...Array(n).keys()].slice(2).some((d) => n % d === 0)) continue;
    K256.push(Math.floor((Math.cbrt(n) % 1) * 2 ** 32) >>> 0);
  }

  /** FIPS 180-4 SHA-256, for where WebCrypto is missing. */
  function sha256js(bytes) {
    const h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    const len = bytes.length, padded = new Uint8Array(((len + 72) >> 6) << 6);
    padded.set(bytes);
    padded[len] = 0x80;
    const view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(len / 2 ** 29));
    view.setUint32(padded.length - 4, (len << 3) >>> 0);
    const ror = (x, n) => (x >>> n) | (x << (32 - n));
    const w = new Array(64);
    for (let o = 0; o < padded.length; o += 64) {
      for (let t = 0; t < 64; t++) {
        if (t < 16) w[t] = view.getUint32(o + 4 * t);
        else {
          const a = w[t - 15], b = w[t - 2];
          w[t] = (w[t - 16] + (ror(a, 7) ^ ror(a, 18) ^ (a >>> 3)) + w[t - 7] + (ror(b, 17) ^ ror(b, 19) ^ (b >>> 10))) >>> 0;
        }
      }
      let [a, b, c, d, e, f, g, k] = h;
      for (let t = 0; t < 64; t++) {
        const t1 = (k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K256[t] + w[t]) >>> 0;
        const t2 = ((ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
        [k, g, f, e, d, c, b, a] = [g, f, e, (d + t1) >>> 0, c, b, a, (t1 + t2) >>> 0];
      }
      [a, b, c, d, e, f, g, k].forEach((x, j) => { h[j] = (h[j] + x) >>> 0; });
    }
    const out = new DataView(new ArrayBuffer(32));
    h.forEach((x, j) => out.setUint32(4 * j, x));
    return new Uint8Array(out.buffer);
  }

  // ------------------------------------------------------------ dice-v1

  const SIGMA = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]; // "expand 32-byte k"
  const rotl = (v, c) => ((v << c) | (v >>> (32 - c))) >>> 0;

  /** One ChaCha20 block (RFC 8439 quarter-rounds, 10 double rounds):
   *  16 u32 words. words12to15: block counter low, high, stream id 0, 0. */
  function chachaBlock(key, words12to15) {
    const s = [...SIGMA, ...key, ...words12to15], x = s.slice();
    const qr = (a, b, c, d) => {
      x[a] = (x[a] + x[b]) >>> 0; x[d] = rotl(x[d] ^ x[a], 16);
      x[c] = (x[c] + x[d]) >>> 0; x[b] = rotl(x[b] ^ x[c], 12);
      x[a] = (x[a] + x[b]) >>> 0; x[d] = rotl(x[d] ^ x[a], 8);
      x[c] = (x[c] + x[d]) >>> 0; x[b] = rotl(x[b] ^ x[c], 7);
    };
    for (let r = 0; r < 10; r++) {
      qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15);
      qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14);
    }
    return x.map((v, j) => (v + s[j]) >>> 0);
  }

  /** rand_chacha's ChaCha20Rng::from_seed(seed) read with next_u32 (the
   *  keystream's words in order), and dice-v1's frozen draw algorithms. */
  class Stream {
    constructor(seed) {
      const v = new DataView(seed.buffer, seed.byteOffset, 32);
      this.key = [0, 1, 2, 3, 4, 5, 6, 7].map((j) => v.getUint32(4 * j, true));
      this.block = 0;
      this.words = [];
      this.pos = 0;
    }
    nextU32() {
      if (this.pos === this.words.length) {
        this.words = chachaBlock(this.key, [this.block % 2 ** 32, Math.floor(this.block / 2 ** 32), 0, 0]);
        this.block++;
        this.pos = 0;
      }
      return this.words[this.pos++];
    }
    /** Uniform in 0..n-1 by rejection; always takes at least one word. */
    below(n) {
      const limit = Math.floor(2 ** 32 / n) * n; // exact: n <= 2^32
      for (;;) {
        const x = this.nextU32();
        if (x < limit) return x % n;
      }
    }
    die(sides) { return this.below(sides) + 1; }
    /** Fisher–Yates from the last index down. */
    permutation(n) {
      const v = [...Array(n).keys()];
      for (let i = n - 1; i > 0; i--) {
        const j = this.below(i + 1);
        [v[i], v[j]] = [v[j], v[i]];
      }
      return v;
    }
    draw(kind, sides, count) {
      if (kind === "die") return [this.die(sides)];
      if (kind === "shuffle") return this.permutation(sides);
      return this.permutation(sides).slice(0, count); // pool: a shuffle's prefix, same words
    }
  }

  /** dice-v1 "Seed of stream σ for step k": every role's salt, roles in
   *  byte order, each part followed by a zero byte. */
  function seedOf(game, step, stream, link, salts) {
    const bytes = [], put = (b) => bytes.push(...b, 0);
    [SCHEME, game, String(step), stream].forEach((s) => put(utf8.encode(s)));
    put(link);
    for (const role of Object.keys(salts).sort(byUtf8)) {
      if (typeof salts[role] !== "string") throw new Error(`the salt of ${role} is not text`);
      put(utf8.encode(role + "=" + salts[role]));
    }
    return sha256(Uint8Array.from(bytes));
  }

  async function hashBack(link, times) {
    for (let t = 0; t < times; t++) link = await sha256(link);
    return link;
  }

  /** chain: [[k, link]] of one stream, its anchor first as step 0 (or the
   *  renewal's base). Map k -> k' for each link that does not hash back to
   *  the link k' it was checked against. A failing link becomes the new
   *  reference only if the next link hashes back to it, so one bad anchor
   *  or one bad link is reported once. */
  async function checkChain(chain) {
    const bad = new Map();
    let [k0, l0] = chain[0];
    for (let i = 1; i < chain.length; i++) {
      const [k, l] = chain[i];
      if (k > k0 && sameBytes(await hashBack(l, k - k0), l0)) {
        [k0, l0] = [k, l];
        continue;
      }
      bad.set(k, k0);
      const next = chain[i + 1];
      if (next && next[0] > k && sameBytes(await hashBack(next[1], next[0] - k), l)) [k0, l0] = [k, l];
    }
    return bad;
  }

  /** A draw no stream can give: the stream cannot be followed past it. */
  const malformed = (kind, sides, result) => !["die", "shuffle", "pool"].includes(kind) || !Number.isInteger(sides)
    || sides < 1 || sides > (kind === "die" ? 2 ** 32 : 2 ** 20) || (kind === "pool" && result.length > sides);
  const faces = (r) => (r.length ? r.join(",") : "(none)");

  /** The draws of one stream in one step, in order: the problems found. */
  function checkDraws(seed, draws) {
    const s = new Stream(seed), bad = [];
    for (const [i, d] of draws.entries()) {
      const result = Array.isArray(d.result) ? d.result : [];
      if (d.n !== i) bad.push([d, `counter n = ${d.n} where ${i} was expected (a gap or a repeat)`]);
      if (malformed(d.kind, d.sides, result)) {
        bad.push([d, `malformed draw: kind ${d.kind}, sides ${d.sides}, result ${faces(result)}`]);
        break;
      }
      const got = s.draw(d.kind, d.sides, result.length);
      if (got.length !== result.length || got.some((x, j) => x !== result[j])) {
        bad.push([d, `recorded ${faces(result)}, dice-v1 gives ${faces(got)}`]);
      }
    }
    return bad;
  }

  // ------------------------------------------------------ the journal

  /** Stage 1: seq, prev and every entry's hash. False: it cannot be read. */
  async function checkHashes(j) {
    const format = j.entries[0].format;
    if (format === undefined) {
      j.fail(1, "the journal has no format: it predates adjutant-journal-1 and is hashed over canonical TOML, "
        + "which this page does not check (scripts/verify_dice.py does)");
      return false;
    }
    if (format !== FORMAT_V1) {
      j.fail(1, `the journal is in format ${JSON.stringify(format)}, which this verifier does not know (a later adjutant wrote it)`);
      return false;
    }
    let prev = GENESIS;
    for (const [i, e] of j.entries.entries()) {
      if (e.seq !== i + 1) j.fail(i + 1, `seq is ${e.seq}, expected ${i + 1}`);
      if (e.prev !== prev) j.fail(i + 1, `prev does not point to the previous entry's hash ${prev.slice(0, 16)}…`);
      const body = newTable();
      for (const k of Object.keys(e)) if (k !== "hash") body[k] = e[k];
      const h = hex(await sha256(utf8.encode(String(e.prev) + "\n" + canonicalJson(body))));
      if (h !== e.hash) {
        j.fail(i + 1, `the ${e.kind} entry does not match its recorded hash (recorded ${String(e.hash).slice(0, 16)}…, `
          + `computed ${h.slice(0, 16)}…): the entry or its hash was changed after it was written`);
      }
      prev = String(e.hash);
    }
    return true;
  }

  /** Stage 2: the public export's own table, and where each entry stands
   *  in the game's journal (for the tips players hold). */
  function readExport(j) {
    const first = j.entries[0], x = isTable(first.export) ? first.export : null;
    j.redacted = Boolean(x && x.redacted === true);
    for (const e of j.entries) {
      const src = x ? e.source : e;
      if (isTable(src) && Number.isInteger(src.seq) && typeof src.hash === "string") j.sources.set(src.seq, src.hash);
    }
    if (x) {
      const stubs = j.entries.filter((e) => e.kind === "withheld").length;
      j.notes.push(`a public export of ${x.source_entries} entries of the game's journal: ${stubs} withheld as stubs`
        + (j.redacted ? "; redacted, the game is in progress" : ""));
    }
  }

  /** Stage 3: the game, its streams and their anchors (`created`), and the
   *  renewed chains. False: there are no committed dice to check. */
  function readCommitment(j) {
    const c = j.entries[0];
    if (c.kind !== "created") return j.fail(1, `the first entry is ${JSON.stringify(c.kind)}, not "created"`), false;
    j.game = typeof c.game === "string" ? c.game : "";
    j.dice = c.dice;
    if (c.dice !== "committed") {
      j.notes.push(`game ${j.game} uses ${JSON.stringify(c.dice)} dice: its draws were declared by the moderator and cannot be verified`);
      return false;
    }
    j.roles = Array.isArray(c.roles) ? c.roles.map(String) : [];
    j.streams = ["public", ...j.roles.map((r) => "role:" + r), "gm"];
    j.chainLen = c.chain_len;
    const anchors = isTable(c.anchors) ? c.anchors : newTable();
    for (const s of Object.keys(anchors)) {
      const a = unhex(anchors[s]);
      if (a) j.chains.set(s + "\0" + 0, [[0, a]]);
      else j.fail(1, `the anchor of stream ${s} is not 64 lowercase hex digits`);
    }
    for (const s of j.streams) if (!j.chains.has(s + "\0" + 0)) j.fail(1, `no anchor for stream ${s}`);
    for (const e of j.entries.slice(1).filter((x) => x.kind === "renewed")) readRenewal(j, e);
    return true;
  }

  /** A `renewed` entry: fresh chains for steps base + 1 … base + L. */
  function readRenewal(j, e) {
    const b = e.base, an = isTable(e.anchors) ? e.anchors : newTable();
    if (!Number.isInteger(b) || e.chain_len !== j.chainLen || b <= 0 || b % Math.max(Number(j.chainLen) || 1, 1)) {
      return j.fail(e.seq, `a renewal after step ${b} does not end a chain of length ${j.chainLen}`);
    }
    for (const s of j.streams) if (!unhex(an[s])) j.fail(e.seq, `renewal after step ${b}: no valid anchor for stream ${s}`);
    for (const s of Object.keys(an)) if (unhex(an[s])) j.chains.set(s + "\0" + b, [[b, unhex(an[s])]]);
    j.renewals.push(b);
    j.notes.push(`chains renewed after step ${b}`);
  }

  /** The chain a step's links belong to: the last renewal before it. */
  const baseOf = (j, k) => Math.max(0, ...j.renewals.filter((b) => b < k));

  /** Stage 4: every revealed link, stream by stream, back to its anchor. */
  async function checkLinks(j) {
    for (const e of j.entries.slice(1)) {
      if (e.kind !== "resolved" || !Number.isInteger(e.step) || !isTable(e.links)) continue;
      for (const s of Object.keys(e.links)) {
        const chain = j.chains.get(s + "\0" + baseOf(j, e.step)), link = unhex(e.links[s]);
        if (chain && link) chain.push([e.step, link]);
      }
    }
    for (const [key, chain] of j.chains) j.badLinks.set(key, await checkChain(chain));
  }

  /** Stage 5: the entries in order, as the game went: salts, rollbacks,
   *  the end, and every resolved step's links, seeds and draws. */
  async function replaySteps(j) {
    const state = { open: 1, salts: newTable(), ended: false };
    for (const e of j.entries.slice(1)) {
      try {
        if (e.kind === "salt") takeSalt(j, e, state);
        else if (e.kind === "ended") state.ended = true;
        else if (e.kind === "rolled_back") rollBack(j, e, state);
        else if (e.kind === "resolved" && !(await resolveStep(j, e, state))) return;
      } catch (x) {
        j.fail(e.seq, `${e.kind}: malformed: ${x.message}`);
      }
    }
  }

  /** Only the last salt a role gives for the open step counts. */
  function takeSalt(j, e, state) {
    if (e.step !== state.open) j.fail(e.seq, `a salt for step ${e.step} while step ${state.open} is open`);
    else if (!j.roles.includes(e.role)) j.fail(e.seq, `a salt from ${JSON.stringify(e.role)}, not a role of the game`);
    else state.salts[e.role] = has(e, "salt") ? e.salt : "";
  }

  /** The moderator took the game back to a step's opening: the reopened
   *  step takes the next number whose links were never revealed (no die is
   *  drawn twice), the salts given are void, an ended game is open again.
   *  The undone steps' draws stay checked like any other. */
  function rollBack(j, e, state) {
    if (e.step !== state.open) {
      j.fail(e.seq, `a rollback reopens as step ${e.step}, where step ${state.open} is the next whose dice were never drawn`);
    }
    const undone = Array.isArray(e.voided_steps) ? e.voided_steps.join(", ") : "";
    j.notes.push(`rolled back to step ${e.to_step}, going on as step ${e.step} (entry ${e.seq}): `
      + `"${e.reason}"; the draws of undone steps (${undone}) are checked and count for no one`);
    state.salts = newTable();
    state.ended = false;
  }

  /** One resolved step. False: the journal cannot be followed past it. */
  async function resolveStep(j, e, state) {
    const k = e.step, where = `step ${k}`;
    if (state.ended) j.fail(e.seq, `${where}: resolved after the game ended`);
    if (k !== state.open) j.fail(e.seq, `${where}: resolved while step ${state.open} is open`);
    if (!Number.isInteger(k) || !Number.isInteger(j.chainLen) || k < 1 || k > baseOf(j, k) + j.chainLen) {
      j.fail(e.seq, `${where}: no link ${k} in chains of length ${j.chainLen}`);
      return false;
    }
    const salts = isTable(e.salts) ? e.salts : newTable();
    checkSalts(j, e, salts, state.salts);
    const seeds = await stepSeeds(j, e, salts);
    const byStream = new Map();
    for (const d of Array.isArray(e.draws) ? e.draws : []) {
      if (!isTable(d)) throw new Error("a draw is not a table");
      if (!byStream.has(d.stream)) byStream.set(d.stream, []);
      byStream.get(d.stream).push(d);
    }
    for (const [s, ds] of byStream) {
      if (ds.some((d) => d.declared)) j.fail(e.seq, `${where}, stream ${s}: declared draws in a committed game`);
      if (!seeds.has(s)) {
        j.fail(e.seq, `${where}, stream ${s}: ${ds.length} draw(s) but no link revealed for the stream`);
        continue;
      }
      for (const [d, why] of checkDraws(seeds.get(s), ds)) j.fail(e.seq, `${where}, stream ${s}, draw ${d.n} (${d.label}): ${why}`);
      j.draws += ds.length;
    }
    j.steps++;
    state.open = k + 1;
    state.salts = newTable();
    return true;
  }

  /** The step's list of salts: every role's last salt, "" if none. A
   *  redacted export holds no salt entries: its list is used as it stands. */
  function checkSalts(j, e, got, given) {
    const expect = newTable();
    for (const r of j.roles) expect[r] = has(given, r) ? given[r] : "";
    for (const r of [...new Set([...Object.keys(expect), ...Object.keys(got)])].sort(byUtf8)) {
      if (j.redacted && has(expect, r) && has(got, r)) continue;
      if (!has(got, r)) j.fail(e.seq, `step ${e.step}: the salt of ${r} is missing (expected ${JSON.stringify(expect[r])})`);
      else if (!has(expect, r)) j.fail(e.seq, `step ${e.step}: a salt for ${JSON.stringify(r)}, which is not a role of the game`);
      else if (got[r] !== expect[r]) {
        j.fail(e.seq, `step ${e.step}: the salt of ${r} is ${JSON.stringify(got[r])}, but the last one given was ${JSON.stringify(expect[r])}`);
      }
    }
  }

  /** The seed of every stream whose link the step reveals (a link that does
   *  not hash back fails, and its draws are still regenerated). */
  async function stepSeeds(j, e, salts) {
    const seeds = new Map(), base = baseOf(j, e.step), links = isTable(e.links) ? e.links : newTable();
    for (const s of Object.keys(links).sort(byUtf8)) {
      const link = unhex(links[s]), bad = j.badLinks.get(s + "\0" + base), where = `step ${e.step}, stream ${s}`;
      if (!link) { j.fail(e.seq, `${where}: the link is not 64 lowercase hex digits`); continue; }
      if (!j.badLinks.has(s + "\0" + 0)) { j.fail(e.seq, `${where}: a link for a stream with no anchor`); continue; }
      if (!bad) { j.fail(e.seq, `${where}: no anchor for the chain after step ${base}`); continue; }
      if (bad.has(e.step)) {
        const k0 = bad.get(e.step);
        const what = k0 === 0 ? "the anchor" : k0 === base ? `the anchor renewed after step ${k0}` : `the link of step ${k0}`;
        j.fail(e.seq, `${where}: link ${links[s].slice(0, 16)}… does not hash back to ${what}`);
      } else j.links++;
      seeds.set(s, await seedOf(j.game, e.step, s, link, salts));
    }
    return seeds;
  }

  /** The [[entry]] tables of a journal's text. */
  function readEntries(text) {
    const doc = parseToml(String(text));
    const entries = doc.entry;
    if (!Array.isArray(entries) || !entries.length || !entries.every(isTable)) {
      throw new TomlError("no [[entry]] tables: not an adjutant journal", 0);
    }
    return entries;
  }

  /** Check a published journal (its text): the verdict, what was checked,
   *  and the first failure by entry. */
  async function verify(text) {
    const j = {
      entries: [], fails: [], notes: [], sources: new Map(), game: "", dice: null, roles: [], streams: [], chainLen: null,
      chains: new Map(), badLinks: new Map(), renewals: [], redacted: false, draws: 0, steps: 0, links: 0,
      fail(seq, why) { this.fails.push({ seq: Number.isInteger(seq) ? seq : 0, why }); },
    };
    try {
      j.entries = readEntries(text);
      if (await checkHashes(j)) {
        readExport(j);
        if (readCommitment(j)) {
          await checkLinks(j);
          await replaySteps(j);
        }
      }
    } catch (x) {
      j.fail(x instanceof TomlError ? x.entry : 0, x instanceof TomlError ? `not a journal adjutant writes: ${x.message}` : String(x.message || x));
    }
    if (j.redacted) {
      j.notes.push("not checked (withheld from a public export while the game lasts): the salts given, and the links "
        + "and draws of the private streams; they are checked once the game has ended and the whole journal is published");
    }
    const fails = j.fails.map((f, n) => [f, n]).sort((a, b) => a[0].seq - b[0].seq || a[1] - b[1]).map((x) => x[0]);
    return {
      verdict: fails.length ? "failed" : "verified", draws: j.draws, steps: j.steps, entries: j.entries.length,
      links: j.links, redacted: j.redacted, game: j.game, dice: j.dice, firstFailure: fails[0] || null, failures: fails,
      notes: j.notes, sources: j.sources, sourceEnd: Math.max(0, ...j.sources.keys()),
    };
  }

  // ------------------------------------------------ tips from players' mails

  /** The JOURNAL blocks pasted from mails (quoted ones too): [{game, entry, hash}]. */
  function readTips(text) {
    const out = [];
    let cur = {};
    for (const raw of String(text).split(/\r?\n/)) {
      const line = raw.replace(/^[\s>]+/, "").trim();
      let m;
      if (line === "-----BEGIN ADJUTANT JOURNAL-----") cur = {};
      else if ((m = /^game:\s*(\S+)$/.exec(line))) cur.game = m[1];
      else if ((m = /^entry:\s*(\d+)$/.exec(line))) cur.entry = Number(m[1]);
      else if ((m = /^hash:\s*([0-9a-fA-F]{64})$/.exec(line))) cur.hash = m[1].toLowerCase();
      if (cur.entry !== undefined && cur.hash !== undefined) {
        out.push(cur);
        cur = { game: cur.game };
      }
    }
    return out;
  }

  /** Does the verified journal hold this tip? { ok, why }. In an export,
   *  each entry's `source` names its place in the game's journal. */
  function checkTip(result, tip) {
    const name = `entry ${tip.entry}`;
    if (result.verdict !== "verified") return { ok: false, why: `${name}: the journal failed its own check, so it vouches for nothing` };
    if (tip.game && result.game && tip.game !== result.game) return { ok: false, why: `${name}: a tip of game ${tip.game}, not of ${result.game}` };
    const h = result.sources.get(tip.entry);
    if (h === tip.hash) return { ok: true, why: `${name}: held, with the hash your mail shows` };
    if (h !== undefined) return { ok: false, why: `${name}: the journal has another hash: the history was changed after your mail went out` };
    if (tip.entry > result.sourceEnd) return { ok: false, why: `${name}: past the journal's end (entry ${result.sourceEnd}): entries were removed from its end` };
    return { ok: false, why: `${name}: the journal does not hold it: entries were removed or the history rewritten` };
  }

  const api = { parseToml, canonicalJson, verify, readTips, checkTip, sha256, sha256js, chachaBlock, Stream, seedOf, hex, unhex };
  root.AdjutantVerify = api;
  if (typeof module === "object" && module && module.exports) module.exports = api; // node tests only
})(typeof globalThis !== "undefined" ? globalThis : this);
