#!/usr/bin/env python3
"""Independent verifier of adjutant's dice, scheme dice-v1 (docs/dice-v1.md).

Python 3.11+ standard library only; shares no code with the Rust crate.

    python3 scripts/verify_dice.py JOURNAL.toml
    python3 scripts/verify_dice.py --mail FILE.eml|DIR ...
    python3 scripts/verify_dice.py --vectors

JOURNAL.toml (a game whose `created.dice` is "committed"): checks
  * the journal's entry hash chain: seq = 1, 2, ...; each `prev` is the previous
    entry's `hash` (64 zeros for the first); each `hash` is SHA-256(prev + "\n" +
    canonical text of the entry without `hash`).  A journal whose first entry
    has `format = "adjutant-journal-1"` is hashed over canonical JSON
    (docs/journal-v1.md); an older one over canonical TOML, which is
    re-created here by a port of what the Rust `toml` 0.8 crate (toml_edit
    0.22, toml_write 0.1) writes for a table with sorted keys; rewriting
    journals the binary wrote (strings with quotes, backslashes, tabs,
    control characters, non-ASCII) with it gives the files back byte for
    byte.  An entry holding a TOML date-time (which adjutant does not write)
    is reported as not checked, not as a failure;
  * the anchors: one per stream (public, role:<r> for every role, gm);
  * every `resolved` step k = 1, 2, ... in order: its salts are exactly the
    roles of the game, each the last `salt` entry of that role for step k
    (absent: empty), and a salt entry names the open step and a role; each
    link revealed hashes back to that stream's previous revealed link, or to
    the anchor (k - k' hashes from step k');
  * the seed of every stream with draws, and every draw regenerated from it
    (ChaCha20 implemented below), with per-stream counters n = 0, 1, 2, ...
    in each step and no declared draw in a committed game.
It does NOT replay the rules: that the rules asked for exactly these draws
(a draw left out at the end of a stream, or one added whose result happens
to be what the stream gives, goes unnoticed here), that events and state
digests follow from them, or that orders were legal.  Nor does it check the
order of draws across streams (streams are independent).  `adjutant audit`
does all of that as well.

--mail FILES: reads ANCHORS (welcome), DICE (results) and REVEAL (game over)
blocks from .eml files (MIME decoded) or plain text files, or from every file
under a directory (a Maildir), and checks what a reader can see: every link
shown hashes back to the anchor (through the nearest earlier link known),
the same link is never shown with two values, and every draw shown for a
stream whose link is in the same block regenerates, counters without gaps.
It prints each step's salts so the reader can check their own.

Exit status: 0 everything verified, 1 a mismatch (named by step, stream and
draw, or entry seq), 2 bad usage or unreadable input (or declared dice).
"""
import argparse, email, email.policy, hashlib, json, math, os, re, struct, sys, tomllib
from decimal import Decimal

SCHEME = b"adjutant/dice-v1"
GENESIS = "0" * 64

# ---------------------------------------------------------------- dice-v1 core

def sha256(b):
    return hashlib.sha256(b).digest()

def chacha20_block(key_words, words12_15, rounds=20):
    """One ChaCha block: 16 little-endian u32 words of keystream."""
    M = 0xFFFFFFFF
    s = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574, *key_words, *words12_15]
    x = s[:]
    def qr(a, b, c, d):
        x[a] = (x[a] + x[b]) & M; x[d] ^= x[a]; x[d] = ((x[d] << 16) | (x[d] >> 16)) & M
        x[c] = (x[c] + x[d]) & M; x[b] ^= x[c]; x[b] = ((x[b] << 12) | (x[b] >> 20)) & M
        x[a] = (x[a] + x[b]) & M; x[d] ^= x[a]; x[d] = ((x[d] << 8) | (x[d] >> 24)) & M
        x[c] = (x[c] + x[d]) & M; x[b] ^= x[c]; x[b] = ((x[b] << 7) | (x[b] >> 25)) & M
    for _ in range(rounds // 2):
        qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15)
        qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14)
    return [(x[i] + s[i]) & M for i in range(16)]

class Stream:
    """rand_chacha's ChaCha20Rng::from_seed(seed) read with next_u32, and the
    frozen draw algorithms of dice-v1."""
    def __init__(self, seed):
        self.key = struct.unpack("<8I", seed)
        self.block, self.buf = 0, []
    def next_u32(self):
        if not self.buf:   # words 12-13: 64-bit block counter; 14-15: stream 0
            self.buf = chacha20_block(self.key, [self.block & 0xFFFFFFFF, self.block >> 32, 0, 0])
            self.block += 1
        return self.buf.pop(0)
    def below(self, n):    # uniform in 0..n by rejection
        limit = (1 << 32) // n * n
        while True:
            x = self.next_u32()
            if x < limit:
                return x % n
    def die(self, sides):
        return self.below(sides) + 1
    def permutation(self, n):  # Fisher-Yates from the last index down
        v = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.below(i + 1)
            v[i], v[j] = v[j], v[i]
        return v
    def draw(self, kind, sides, count):
        if kind == "die":
            return [self.die(sides)]
        if kind == "shuffle":
            return self.permutation(sides)
        return self.permutation(sides)[:count]   # pool: a shuffle's prefix

def seed_of(game, step, stream, link, salts):
    m = b"\0".join([SCHEME, game.encode(), str(step).encode(), stream.encode(), link]) + b"\0"
    for role in sorted(salts, key=lambda r: r.encode()):
        m += role.encode() + b"=" + salts[role].encode() + b"\0"
    return sha256(m)

def hash_back(link, times):
    for _ in range(times):
        link = sha256(link)
    return link

def check_chain(chain):
    """chain: [(k, link)] of one stream by step, the anchor as k = 0 first.
    Returns {k: k'} for each link that does not hash back to the link k' it
    was checked against. A link that fails is trusted as the new reference
    only if the next link hashes back to it (so a bad anchor is reported
    once, and so is a bad link in the middle)."""
    bad, (k0, l0) = {}, chain[0]
    for i, (k, l) in enumerate(chain[1:], 1):
        if k > k0 and hash_back(l, k - k0) == l0:
            k0, l0 = k, l
            continue
        bad[k] = k0
        nxt = chain[i + 1] if i + 1 < len(chain) else None
        if nxt and nxt[0] > k and hash_back(nxt[1], nxt[0] - k) == l:
            k0, l0 = k, l
    return bad

def check_draws(seed, draws):
    """draws: [(n, kind, sides, result, label)] of one stream in one step, in
    order. Returns a list of (n, label, problem) for those that fail."""
    s, bad = Stream(seed), []
    for i, (n, kind, sides, result, label) in enumerate(draws):
        result = list(result)
        if n != i:
            bad.append((n, label, f"counter n = {n} where {i} was expected (a gap or a repeat)"))
        if kind not in ("die", "shuffle", "pool") or not isinstance(sides, int) or sides < 1 \
                or sides > (1 << 32 if kind == "die" else 1 << 20) or (kind == "pool" and len(result) > sides):
            bad.append((n, label, f"malformed draw: kind {kind!r}, sides {sides!r}, result {result}"))
            break   # the stream cannot be followed past it
        got = s.draw(kind, sides, len(result))
        if got != result:
            bad.append((n, label, f"recorded {fmt(result)}, dice-v1 gives {fmt(got)}"))
    return bad

def fmt(r):
    return ",".join(map(str, r)) if r else "(none)"

def unhex(h):
    try:
        b = bytes.fromhex(h)
        return b if len(b) == 32 and h == h.lower() else None
    except (TypeError, ValueError):
        return None

# ------------------------------------------- canonical TOML (Rust toml 0.8)

class Unsupported(Exception):
    pass

def toml_string(s):
    b = s.encode()
    sq = max((len(m) for m in re.findall(rb"'+", b)), default=0)
    dq = max((len(m) for m in re.findall(rb'"+', b)), default=0)
    nl = b"\n" in b
    esc = b"\\" in b
    codes = any((c < 0x20 and c not in (9, 10)) or c == 0x7F for c in b)
    if not (codes or esc or dq or nl):
        return _basic(s, False)
    if not (codes or sq or nl):
        return "'" + s + "'"
    if not (codes or esc or dq > 2):
        return _basic(s, True)
    if not (codes or sq > 2):
        return "'''" + ("\n" if nl else "") + s + "'''"
    return _basic(s, nl)

def _basic(s, ml):
    out, run = [], 0   # run: quotes in a row since the last escape
    for ch in s:
        run = run + 1 if ch == '"' else 0
        if ch == '"' and run > (2 if ml else 0):
            out.append('\\"')
        elif ch in "\b\t\f\r\\" or (ch == "\n" and not ml):
            out.append({"\b": "\\b", "\t": "\\t", "\f": "\\f", "\r": "\\r", "\\": "\\\\", "\n": "\\n"}[ch])
        elif ch != "\n" and (ord(ch) < 0x20 or ord(ch) == 0x7F):
            out.append("\\u%04X" % ord(ch))
        else:
            out.append(ch)
            continue
        run = 0
    q = '"""' if ml else '"'
    return q + ("\n" if ml and "\n" in s else "") + "".join(out) + q

def toml_key(k):
    if k and re.fullmatch(r"[A-Za-z0-9_-]+", k):
        return k
    b = k.encode()
    if not any((c < 0x20 and c != 9) or c == 0x7F for c in b):
        if '"' not in k and "\\" not in k:
            return _basic(k, False)
        if "'" not in k:
            return "'" + k + "'"
    return _basic(k, False)

def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "-nan" if math.copysign(1, v) < 0 else "nan"
        if math.isinf(v):
            return "-inf" if v < 0 else "inf"
        if v == 0:
            return "-0.0" if math.copysign(1, v) < 0 else "0.0"
        d = format(Decimal(repr(v)), "f")   # Rust prints the shortest digits, no exponent
        return d.split(".")[0] + ".0" if v % 1.0 == 0 else d
    if isinstance(v, str):
        return toml_string(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{}" if not v else "{ " + ", ".join(
            f"{toml_key(k)} = {toml_value(x)}" for k, x in sorted(v.items(), key=lambda i: i[0].encode())) + " }"
    raise Unsupported(type(v).__name__)

def canonical_toml(table):
    """What `toml::to_string(&toml::Table)` writes: per table, its plain
    values (sorted keys), then its sub-tables and arrays of tables depth-first
    in key order; a non-empty table with no plain values gets no header."""
    out = []
    def is_aot(v):
        return isinstance(v, list) and v and all(isinstance(x, dict) for x in v)
    def visit(t, path, aot):
        items = sorted(t.items(), key=lambda i: i[0].encode())
        values = [(k, v) for k, v in items if not isinstance(v, dict) and not is_aot(v)]
        if path:
            head = ".".join(toml_key(k) for k in path)
            if aot:
                out.append(("\n" if out else "") + f"[[{head}]]\n")
            elif values or not t:
                out.append(("\n" if out else "") + f"[{head}]\n")
        for k, v in values:
            out.append(f"{toml_key(k)} = {toml_value(v)}\n")
        for k, v in items:
            if isinstance(v, dict):
                visit(v, path + [k], False)
            elif is_aot(v):
                for x in v:
                    visit(x, path + [k], True)
    visit(table, [], False)
    return "".join(out)

FORMAT_V1 = "adjutant-journal-1"

def canonical_json(table):
    """journal-1 (docs/journal-v1.md): canonical JSON, keys in code point
    (= UTF-8 byte) order, no white space, RFC 8785 string escapes, integers
    in decimal; floats and dates never appear."""
    def check(v):
        if isinstance(v, bool) or isinstance(v, (int, str)):
            return
        if isinstance(v, list):
            for x in v:
                check(x)
            return
        if isinstance(v, dict):
            for x in v.values():
                check(x)
            return
        raise Unsupported(type(v).__name__)
    check(table)
    return json.dumps(table, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

def entry_hash(e, fmt=None):
    body = {k: v for k, v in e.items() if k != "hash"}
    text = canonical_json(body) if fmt == FORMAT_V1 else canonical_toml(body)
    return hashlib.sha256((str(e.get("prev", "")) + "\n" + text).encode()).hexdigest()

# ------------------------------------------------------------ journal mode

def verify_journal(path):
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as e:
        return usage_error(f"cannot read {path}: {e.strerror}")
    except tomllib.TOMLDecodeError as e:
        return usage_error(f"{path} is not TOML: {e}")
    entries = doc.get("entry")
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        return usage_error(f"{path}: no [[entry]] tables: not an adjutant journal")
    fails, notes = [], []
    # 1. The entry hash chain, in the format the first entry names (none:
    # the canonical TOML of journals from before the format was pinned).
    fmt = entries[0].get("format")
    if fmt is not None and fmt != FORMAT_V1:
        return usage_error(f"{path}: journal format {fmt!r} is not one this script knows")
    prev, unchecked = GENESIS, 0
    for i, e in enumerate(entries):
        seq = e.get("seq")
        if seq != i + 1:
            fails.append(f"entry #{i + 1}: seq is {seq!r}, expected {i + 1}")
        if e.get("prev") != prev:
            fails.append(f"entry seq {seq}: prev does not point to the previous entry's hash {prev[:16]}...")
        try:
            h = entry_hash(e, fmt)
            if h != e.get("hash"):
                fails.append(f"entry seq {seq} ({e.get('kind')}): hash mismatch: recorded {e.get('hash')}, computed {h}")
        except Unsupported as u:
            unchecked += 1
            notes.append(f"entry seq {seq}: holds a TOML {u}; its hash was not recomputed")
        prev = str(e.get("hash"))
    chain = f"hash chain of {len(entries)} entries " + (
        "intact" if not fails else "BROKEN") + (f" ({unchecked} not recomputed)" if unchecked else "")
    print(chain)
    shown = show(fails, 0)
    # 2. The commitment.
    c = entries[0]
    if c.get("kind") != "created":
        fails.append(f"entry seq 1 is {c.get('kind')!r}, not 'created'")
        return verdict(fails, notes, shown)
    if c.get("dice") != "committed":
        show(fails, shown)
        return usage_error(f"{path}: game {c.get('game')} uses {c.get('dice')!r} dice, not committed ones: "
                           "its draws were declared and cannot be verified")
    game, roles, chain_len = c.get("game", ""), list(c.get("roles", [])), c.get("chain_len")
    streams = ["public"] + [f"role:{r}" for r in roles] + ["gm"]
    tips = {}   # stream -> (0, anchor)
    for s, a in (c.get("anchors") or {}).items():
        if unhex(a) is None:
            fails.append(f"created: anchor of {s} is not 64 lowercase hex digits")
        else:
            tips[s] = (0, unhex(a))
    for s in streams:
        if s not in tips:
            fails.append(f"created: no anchor for stream {s}")
    print(f"game {game}: {len(roles)} roles ({', '.join(roles)}), streams {', '.join(streams)}, chain length {chain_len}")
    shown = show(fails, shown)
    # 3. Salts, links, seeds, draws, step by step; the links of each stream
    # checked first, as one chain from its anchor.
    # Renewed chains (DESIGN 4.1): step base + i uses link i of the chain
    # whose anchor a `renewed` entry committed after step `base`.
    renewals = {}
    for e in entries[1:]:
        if e.get("kind") == "renewed":
            b, an = e.get("base"), e.get("anchors") or {}
            if not isinstance(b, int) or e.get("chain_len") != chain_len or b % max(chain_len or 1, 1) or b <= 0:
                fails.append(f"entry seq {e.get('seq')}: renewal after step {b!r} does not end a chain of length {chain_len}")
                continue
            for st in streams:
                if unhex(an.get(st, "")) is None:
                    fails.append(f"entry seq {e.get('seq')}: renewal after step {b}: no valid anchor for stream {st}")
            renewals[b] = {st: unhex(h) for st, h in an.items() if unhex(h) is not None}
    def base_of(k):
        return max([0] + [b for b in renewals if b < k])
    chains = {(st, 0): [tip] for st, tip in tips.items()}
    for b, an in renewals.items():
        for st, a in an.items():
            chains[(st, b)] = [(b, a)]
    for e in entries[1:]:
        if e.get("kind") == "resolved" and isinstance(e.get("step"), int) and isinstance(e.get("links"), dict):
            for st, h in e["links"].items():
                key = (st, base_of(e["step"]))
                if key in chains and unhex(h) is not None:
                    chains[key].append((e["step"], unhex(h)))
    bad_links = {key: check_chain(ch) for key, ch in chains.items()}
    if renewals:
        print(f"chains renewed after step(s) {', '.join(str(b) for b in sorted(renewals))}")
    open_step, salts, ended, ndraws, nsteps = 1, {}, False, 0, 0
    for e in entries[1:]:
        kind, seq = e.get("kind"), e.get("seq")
        try:
            if kind == "salt":
                if e.get("step") != open_step:
                    fails.append(f"entry seq {seq}: salt for step {e.get('step')} while step {open_step} is open")
                elif e.get("role") not in roles:
                    fails.append(f"entry seq {seq}: salt from {e.get('role')!r}, not a role of the game")
                else:
                    salts[e["role"]] = e.get("salt", "")
            elif kind == "ended":
                ended = True
            elif kind == "resolved":
                k, f0 = e.get("step"), shown
                where = f"step {k}"
                if ended:
                    fails.append(f"{where}: resolved after the game ended (entry seq {seq})")
                if k != open_step:
                    fails.append(f"{where}: resolved while step {open_step} is open (entry seq {seq})")
                if not isinstance(k, int) or not isinstance(chain_len, int) or not 1 <= k <= base_of(k) + chain_len:
                    fails.append(f"{where}: no link {k} in chains of length {chain_len}")
                    return verdict(fails, notes, shown)
                base = base_of(k)
                expect = {r: salts.get(r, "") for r in roles}
                got_salts = e.get("salts", {})
                for r in sorted(set(expect) | set(got_salts)):
                    if r not in got_salts:
                        fails.append(f"{where}: salt of role {r} missing from the resolved entry (expected {expect[r]!r})")
                    elif r not in expect:
                        fails.append(f"{where}: salt for {r!r}, which is not a role of the game")
                    elif got_salts[r] != expect[r]:
                        fails.append(f"{where}: salt of {r} is {got_salts[r]!r}, but the last salt given for the step was {expect[r]!r}")
                seeds, f_salts = {}, len(fails)
                for s, h in sorted((e.get("links") or {}).items()):
                    link = unhex(h)
                    if link is None:
                        fails.append(f"{where}, stream {s}: link is not 64 lowercase hex digits")
                        continue
                    if s not in tips:
                        fails.append(f"{where}: link for stream {s}, which has no anchor")
                        continue
                    if (s, base) not in bad_links:
                        fails.append(f"{where}: link for stream {s}, which has no anchor for the chain after step {base}")
                        continue
                    if k in bad_links[(s, base)]:
                        k0 = bad_links[(s, base)][k]
                        what = ("the anchor" if k0 == 0 else f"the anchor renewed after step {k0}" if k0 == base
                                else f"the link of step {k0}")
                        fails.append(f"{where}, stream {s}: link {h[:16]}... does not hash back to {what}")
                    seeds[s] = seed_of(game, k, s, link, got_salts)
                by_stream, f_links = {}, len(fails)
                for d in e.get("draws", []):
                    by_stream.setdefault(d.get("stream"), []).append(d)
                counts = []
                for s, ds in by_stream.items():
                    if any(d.get("declared") for d in ds):
                        fails.append(f"{where}, stream {s}: declared draws in a committed game")
                    if s not in seeds:
                        fails.append(f"{where}, stream {s}: {len(ds)} draw(s) but no link revealed for the stream")
                        continue
                    rows = [(d.get("n"), d.get("kind"), d.get("sides"), list(d.get("result", [])), d.get("label", "")) for d in ds]
                    for n, label, why in check_draws(seeds[s], rows):
                        fails.append(f"{where}, stream {s}, draw {n} ({label}): {why}")
                    counts.append(f"{s}: {len(ds)}")
                    ndraws += len(ds)
                nd = sum(len(ds) for ds in by_stream.values())
                st = lambda a, b: "verified" if a == b else "NOT VERIFIED"
                print(f"step {k}: {nd} draw{'s' if nd != 1 else ''} {st(f_links, len(fails))}"
                      + (f" ({', '.join(counts)})" if counts else "") + f"; links of {len(seeds)} streams {st(f_salts, f_links)}"
                      + ("" if f0 == f_salts else "; salts NOT VERIFIED"))
                shown = show(fails, shown)
                nsteps += 1
                open_step, salts = (k + 1 if isinstance(k, int) else open_step + 1), {}
        except (TypeError, ValueError, AttributeError, KeyError) as x:
            fails.append(f"entry seq {seq} ({kind}): malformed: {x!r}")

    print(f"{nsteps} steps, {ndraws} draws" + ("; game ended" if ended else ""))
    return verdict(fails, notes, shown)

def show(fails, start):
    for f in fails[start:]:
        print("  FAIL " + f)
    return len(fails)

def verdict(fails, notes, shown=0):
    for n in notes:
        print("note: " + n)
    show(fails, shown)
    if fails:
        print(f"VERDICT: NOT VERIFIED ({len(fails)} problem{'s' if len(fails) != 1 else ''})")
        return 1
    print("VERDICT: verified")
    return 0

def usage_error(msg):
    print("error: " + msg, file=sys.stderr)
    return 2

# --------------------------------------------------------------- mail mode

BLOCK = re.compile(r"^-----BEGIN ADJUTANT (ANCHORS|DICE|REVEAL)-----$(.*?)^-----END ADJUTANT \1-----$", re.M | re.S)

def mail_text(raw):
    """The text/plain parts of a message, or the file itself if it is not one."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    if msg.get("Content-Type") or msg.get("MIME-Version"):
        parts = [p.get_content() for p in msg.walk() if p.get_content_type() == "text/plain"]
        if parts:
            return "\n".join(parts).replace("\r\n", "\n")
    return raw.decode("utf-8", "replace").replace("\r\n", "\n")

def parse_block(kind, body, origin):
    b = {"kind": kind, "origin": origin, "salts": {}, "links": {}, "draws": [], "anchors": {}}
    for line in body.replace("\r", "").split("\n"):
        if not line.strip():
            continue
        key, sep, val = line.partition(": ")
        if not sep and line.endswith(":"):   # "salt austria:" with its empty value's space stripped
            key, sep, val = line[:-1], ":", ""
        if line.startswith("draw "):
            left, _, label = line.partition(" | ")
            t = left.split(" ")
            if len(t) not in (6, 7) or not t[2].isdigit() or not t[4].isdigit():
                raise ValueError(f"bad draw line {line!r}")
            res = tuple(int(x) for x in t[5].split(",") if x != "")
            b["draws"].append((t[1], int(t[2]), t[3], int(t[4]), res, label, len(t) == 7 and t[6] == "declared"))
        elif key in ("scheme", "game", "step", "steps", "chain-length", "base"):
            b[key] = val.strip()
        elif key.startswith("salt "):
            b["salts"][key[5:]] = val
        elif key.startswith("anchor "):
            b["anchors"][key[7:]] = val.strip()
        elif key.startswith("link "):
            name = key[5:].split(" ")
            if kind == "REVEAL":     # "link <stream> <k>: <hex>"
                b["links"][(name[0], int(name[1]))] = val.strip()
            else:                    # "link <stream>: <hex>", of the block's step
                b["links"][(name[0], None)] = val.strip()
        else:
            raise ValueError(f"unknown line {line!r}")
    if b.get("scheme") != "dice-v1":
        raise ValueError(f"scheme {b.get('scheme')!r}, this verifier knows dice-v1 only")
    for key in {"ANCHORS": ["chain-length"], "DICE": ["step"], "REVEAL": ["steps"]}[kind]:
        if not b.get(key, "").isdigit():
            raise ValueError(f"{key}: {b.get(key)!r} is not a number")
    b["links"] = {(st, int(b["step"]) if k is None else k): h for (st, k), h in b["links"].items()}
    return b

def verify_mail(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(d, f) for d, _, fs in os.walk(p) for f in fs)
        else:
            files.append(p)
    blocks = []
    for f in files:
        try:
            with open(f, "rb") as fh:
                text = mail_text(fh.read())
        except OSError as e:
            return usage_error(f"cannot read {f}: {e.strerror}")
        for m in BLOCK.finditer(text):
            try:
                blocks.append(parse_block(m.group(1), m.group(2), os.path.basename(f)))
            except ValueError as e:
                return usage_error(f"{f}: {m.group(1)} block: {e}")
    if not blocks:
        return usage_error("no ADJUTANT ANCHORS, DICE or REVEAL block in the files given")
    fails, notes, games, shown = [], [], {}, 0
    for b in blocks:
        games.setdefault(b.get("game", "?"), []).append(b)
    for game, bs in sorted(games.items()):
        anchors, chain_len, known = {}, None, {}   # known: (stream, k) -> (hex, origin)
        renewed = {}   # base step -> {stream: hex}, from renewal mails
        for b in bs:
            if b["kind"] == "ANCHORS":
                chain_len = int(b.get("chain-length", "0"))
                base = int(b.get("base", "0"))
                into = anchors if base == 0 else renewed.setdefault(base, {})
                for s, h in b["anchors"].items():
                    if into.setdefault(s, h) != h:
                        fails.append(f"game {game}: two different anchors for {s}"
                                     + (f" renewed after step {base}" if base else ""))
            for (s, k), h in b["links"].items():
                old = known.setdefault((s, k), (h, b["origin"]))
                if old[0] != h:
                    fails.append(f"game {game}, step {k}, stream {s}: link {h[:16]}... in {b['origin']} "
                                 f"but {old[0][:16]}... in {old[1]}")
        print(f"game {game}: " + (f"anchors of {len(anchors)} streams, chain length {chain_len}" if anchors
                                  else "no ANCHORS block (welcome mail): links checked only against each other"))
        if renewed:
            print(f"  chains renewed after step(s) {', '.join(str(b) for b in sorted(renewed))}")
        base_of = lambda k: max([0] + [b for b in renewed if b < k])
        for s in sorted({s for s, _ in known}):
            # One chain per stream and base: the welcome anchor's, then each
            # renewal's; a link hashes back within its own chain.
            for base in sorted({base_of(k) for (t, k) in known if t == s}):
                chain = sorted((k, unhex(h)) for (t, k), (h, _) in known.items() if t == s and base_of(k) == base)
                first = anchors if base == 0 else renewed.get(base, {})
                if s in first:
                    chain.insert(0, (base, unhex(first[s])))
                elif anchors:
                    fails.append(f"game {game}, stream {s}: no anchor in the " + (
                        "welcome mail" if base == 0 else f"renewal mail for the steps after {base}"))
                for k, l in chain:
                    if l is None:
                        fails.append(f"game {game}, step {k}, stream {s}: link is not 64 hex digits")
                chain = [(k, l) for k, l in chain if l is not None]
                for k, k0 in check_chain(chain).items() if chain else ():
                    fails.append(f"game {game}, step {k}, stream {s}: link does not hash back to "
                                 + ("the anchor" if k0 == 0 else f"the anchor renewed after step {k0}" if k0 == base
                                    else f"the link of step {k0}"))
                if chain_len and chain and chain[-1][0] > base + chain_len:
                    fails.append(f"game {game}, stream {s}: link {chain[-1][0]} beyond chain length {chain_len}")
                top = max(k for k, _ in chain) if chain else 0
                print(f"  stream {s}: links of steps {', '.join(str(k) for k, _ in chain if k > base)} checked back to "
                      + (("the anchor" if base == 0 else f"the anchor renewed after step {base}") if s in first
                         else f"step {chain[0][0]}") if top > base else f"  stream {s}: anchor only")
        seen = set()
        for b in sorted((b for b in bs if b["kind"] == "DICE"), key=lambda b: int(b.get("step", "0"))):
            k = int(b.get("step", "0"))
            sig = (k, tuple(sorted(b["links"].items())), tuple(b["draws"]))
            if sig in seen:
                continue
            seen.add(sig)
            f0 = shown = show(fails, shown)
            if anchors and set(b["salts"]) != {s[5:] for s in anchors if s.startswith("role:")}:
                fails.append(f"game {game}, step {k} ({b['origin']}): salts listed for {sorted(b['salts'])}, "
                             "not for every role of the game")
            by_stream, nd, counts = {}, 0, []
            for d in b["draws"]:
                by_stream.setdefault(d[0], []).append(d)
            for s, ds in by_stream.items():
                if any(d[6] for d in ds):
                    notes.append(f"game {game}, step {k}, stream {s}: {len(ds)} declared draw(s), not verifiable")
                    continue
                if (s, k) not in b["links"]:
                    fails.append(f"game {game}, step {k}, stream {s}: draws shown without the stream's link")
                    continue
                seed = seed_of(game, k, s, unhex(b["links"][(s, k)]) or b"", b["salts"])
                for n, label, why in check_draws(seed, [d[1:6] for d in ds]):
                    fails.append(f"game {game}, step {k}, stream {s}, draw {n} ({label}): {why}")
                nd += len(ds)
                counts.append(f"{s}: {len(ds)}")
            salts = ", ".join(f"{r} [{v}]" for r, v in sorted(b["salts"].items()))
            status = "verified" if len(fails) == f0 else "NOT VERIFIED"
            print(f"  step {k}: {nd} draw{'s' if nd != 1 else ''} {status}" + (f" ({', '.join(counts)})" if counts else "")
                  + f"; salts {salts}: check your own")
            shown = show(fails, shown)
    return verdict(fails, notes, shown)

# ------------------------------------------------------------ test vectors

# Pinned in tests/it/dice_vectors.rs: chain top SHA-256("adjutant dice-v1 test
# vector"), chain length 16, game "vector-game", step 1, stream "public",
# salts austria="salt-a", france="".
V_ANCHOR = "6dae9cb320c967401c9ac60e07e39581a3fca527ca62b45938e994f9b6436c47"
V_LINK1 = "f224f355ee951ad2e4de6a662489c0cb38ff52033c5b245f7bd0f50e47c9bdb2"
V_SEED = "ef6d23acb20db53ce7cb8e5c1a4c1e4b2fd4622e8c26512dcd857172b1eb5aff"
V_FACES = [1, 3, 6, 4, 1, 3, 4, 6, 3, 4, 1, 5, 6, 2, 4, 6, 4, 5, 4, 4]
V_SHUFFLE = [7, 2, 13, 1, 14, 0, 3, 12, 15, 9, 4, 6, 10, 11, 5, 8]

def vectors():
    ok = True
    def check(name, got, want):
        nonlocal ok
        good = got == want
        ok &= good
        print(f"{'ok  ' if good else 'FAIL'} {name}: {got}" + ("" if good else f" (pinned: {want})"))
    # ChaCha20 block function itself: RFC 8439 section 2.3.2.
    key = struct.unpack("<8I", bytes(range(32)))
    blk = chacha20_block(key, [1, 0x09000000, 0x4A000000, 0])
    check("ChaCha20 block, RFC 8439 2.3.2, first words", "%08x %08x" % tuple(blk[:2]), "e4e7f110 15593bd1")
    top = sha256(b"adjutant dice-v1 test vector")
    check("anchor x[0]", hash_back(top, 16).hex(), V_ANCHOR)
    link = hash_back(top, 15)
    check("link x[1]", link.hex(), V_LINK1)
    seed = seed_of("vector-game", 1, "public", link, {"austria": "salt-a", "france": ""})
    check("seed", seed.hex(), V_SEED)
    s = Stream(seed)
    print("     first ChaCha20 words: " + " ".join("%08x" % s.next_u32() for _ in range(4)) + " ...")
    s = Stream(seed)
    check("20 d6", [s.die(6) for _ in range(20)], V_FACES)
    check("shuffle of 16", Stream(seed).permutation(16), V_SHUFFLE)
    check("pool of 5 from 16 (prefix of the shuffle)", Stream(seed).draw("pool", 16, 5), V_SHUFFLE[:5])
    print("VERDICT: " + ("vectors verified" if ok else "VECTORS DIFFER"))
    return 0 if ok else 1

def main(argv):
    ap = argparse.ArgumentParser(description="Verify adjutant dice-v1: a journal, mails, or the test vectors.",
                                 epilog="exit status: 0 verified, 1 mismatch, 2 bad usage or input")
    ap.add_argument("journal", nargs="?", help="a game's journal.toml")
    ap.add_argument("--mail", nargs="+", metavar="FILE", help="welcome/results/game-over mails (.eml, text, or Maildir folders)")
    ap.add_argument("--vectors", action="store_true", help="check the dice-v1 test vectors")
    a = ap.parse_args(argv)
    if sum(map(bool, (a.journal, a.mail, a.vectors))) != 1:
        ap.print_usage(sys.stderr)
        print("error: give exactly one of JOURNAL.toml, --mail FILE..., --vectors", file=sys.stderr)
        return 2
    if a.vectors:
        return vectors()
    if a.mail:
        return verify_mail(a.mail)
    return verify_journal(a.journal)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
