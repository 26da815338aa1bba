#!/usr/bin/env python3
"""Independent verifier of adjutant's dice (scheme dice-v1, docs/dice-v1.md)
and journals (adjutant-journal-1, docs/journal-v1.md).

Python 3.11+ standard library only; shares no code with the Rust crate.

    python3 scripts/verify_dice.py JOURNAL.toml
    python3 scripts/verify_dice.py --mail PATH... [--journal PUBLISHED.toml]...
    python3 scripts/verify_dice.py --vectors

JOURNAL.toml (a game's journal.toml, or its public export written by
`adjutant audit GAME --export-public FILE`; dice "committed"): checks
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
    the anchor (k - k' hashes from step k'), or after a `renewed` entry to
    its anchor;
  * the seed of every stream with draws, and every draw regenerated from it
    (ChaCha20 implemented below), with per-stream counters n = 0, 1, 2, ...
    in each step and no declared draw in a committed game.
Kinds and fields it does not know are ignored (hashed, not read): `withheld`
stubs and the `source`/`export` tables of an export, `reanchored`,
`tip_kept`, ...  A public export of a game in progress (`export.redacted =
true`) holds no salt entries and only the public stream's links and draws:
those are checked, and the salts given and the private streams are reported
as not checked (exit 0, "verified as far as a redacted export goes").
It does NOT replay the rules: that the rules asked for exactly these draws
(a draw left out at the end of a stream, or one added whose result happens
to be what the stream gives, goes unnoticed here), that events and state
digests follow from them, or that orders were legal.  Nor does it check the
order of draws across streams (streams are independent).  `adjutant audit`
does all of that as well.

--mail PATH...: what a player can check from the mails adjutant sent, as
their client stored them.  A PATH is a file or a folder walked recursively
in name order (a Maildir's tmp/ and a client's own files, dovecot*,
courierimap*, *.msf, *.sqlite, *.json, *.dat, maildirfolder, subscriptions,
.DS_Store, are left alone).  A file starting with "From " is an mbox
(Thunderbird's local folders, mutt), split at "From " lines that start it or
follow a blank line, ">From " lines losing one ">" (mboxrd); any other file
that starts with a header line is one message.  A message is adjutant's only
if it has an X-Adjutant-Game header: others are counted as ignored (one
holding an ADJUTANT block without that header, a forward or a copy, is named
as skipped); one of ours with no text/plain part, a block cut short or a
block line that cannot be read is skipped and named, never a failure.
Mails are grouped by game, then by recipient (To), and ordered by the journal
entry their Message-ID names (<game>.<seq>-<tag>.<n>[.s<k>]@..., older
<game>.<seq>.<n>...), never by Date.  For each game it checks:
  * the welcome mails (ANCHORS block, no base) of all recipients show the
    same anchors, and each recipient's came before their first accepted
    orders;
  * per recipient: every link shown (DICE and game-over REVEAL blocks)
    hashes back to the welcome anchor, or after a renewal (ANCHORS with
    `base: b`) to the renewed one; the same link or step is never shown two
    ways; every step lists a salt for every role, the recipient's own as
    their acknowledgement ("Your salt for this step: ...") said; every draw
    shown regenerates from its stream's seed, counters without gaps;
  * the JOURNAL blocks (the journal's tip when the mail was sent): no entry
    is named with two hashes by two mails;
  * --journal FILE (repeatable; matched to its game by its first entry's
    `game`): its own hash chain, then that it holds every tip of that game's
    mails with the same hash: a game's journal by seq and hash, a public
    export by each entry's `source = {seq, hash}` (withheld stubs included).
    A tip past its last entry means entries were removed from its end;
    another hash, that the history was changed after the mail went out.
For each game it prints one line `game <id>: VERIFIED`, `NOT VERIFIED (n
failure(s))` or `NOT CHECKED` (nothing failed, but no welcome mail of the
game is among the mails, so its dice cannot be checked), details indented
under it, and a last line `VERDICT: ...`.

Exit status: 0 everything verified; 1 a check failed (named by step, stream
and draw, entry seq, or mail); 2 bad usage or unreadable input (a path or a
--journal that cannot be read, a --journal of a game none of the mails is
of, a journal of declared dice); with --mail also 3 no mail of an adjutant
game was found, 4 nothing failed but some game is NOT CHECKED.
"""
import argparse, datetime, email, email.policy, email.utils, hashlib, json, math, os, re, struct, sys, tomllib
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
        if malformed(kind, sides, result):
            bad.append((n, label, f"malformed draw: kind {kind!r}, sides {sides!r}, result {result}"))
            break   # the stream cannot be followed past it
        got = s.draw(kind, sides, len(result))
        if got != result:
            bad.append((n, label, f"recorded {fmt(result)}, dice-v1 gives {fmt(got)}"))
    return bad

def malformed(kind, sides, result):
    """A draw no stream can give (it cannot be followed past)."""
    return kind not in ("die", "shuffle", "pool") or not isinstance(sides, int) or sides < 1 \
        or sides > (1 << 32 if kind == "die" else 1 << 20) or (kind == "pool" and len(result) > sides)

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

class UnknownFormat(Exception):
    pass

def hash_chain(entries):
    """The entry hash chain, in the format the first entry names (none: the
    canonical TOML of journals from before the format was pinned): seq = 1,
    2, ...; each `prev` the previous entry's `hash` (64 zeros for the
    first); each `hash` recomputed.  Returns (problems, notes); raises
    UnknownFormat for a format this script does not know."""
    fmt = entries[0].get("format")
    if fmt is not None and fmt != FORMAT_V1:
        raise UnknownFormat(fmt)
    fails, notes, prev = [], [], GENESIS
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
            notes.append(f"entry seq {seq}: holds a TOML {u}; its hash was not recomputed")
        prev = str(e.get("hash"))
    return fails, notes

def read_journal(path):
    """The [[entry]] tables of a journal file; a UsageError if it cannot be
    read as one."""
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise UsageError(f"{path} is not TOML: {e}")
    entries = doc.get("entry")
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        raise UsageError(f"{path}: no [[entry]] tables: not an adjutant journal")
    return entries

class UsageError(Exception):
    pass

def verify_journal(path):
    try:
        entries = read_journal(path)
    except UsageError as e:
        return usage_error(str(e))
    # 1. The entry hash chain.
    try:
        fails, notes = hash_chain(entries)
    except UnknownFormat as u:
        return usage_error(f"{path}: journal format {u.args[0]!r} is not one this script knows")
    unchecked = len(notes)
    print(f"hash chain of {len(entries)} entries " + ("intact" if not fails else "BROKEN")
          + (f" ({unchecked} not recomputed)" if unchecked else ""))
    # A public export (audit --export-public): a chain of its own, each
    # entry naming its place in the game's journal (`source`), entries left
    # out as `withheld` stubs.  While the game lasts (`redacted`) it holds
    # no salt entries and only the public stream's links and draws.
    export = entries[0].get("export") if isinstance(entries[0].get("export"), dict) else None
    redacted = bool(export and export.get("redacted") is True)
    if export is not None:
        stubs = sum(1 for e in entries if e.get("kind") == "withheld")
        print(f"a public export of {export.get('source_entries', '?')} entries of the game's journal "
              f"(its tip {str(export.get('source_tip', '?'))[:16]}...): {stubs} withheld as stubs"
              + ("; redacted, the game is in progress" if redacted else ""))
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
    # Renewed chains (docs/dice-v1.md, Commitment): step base + i uses link i of the chain
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
            elif kind == "rolled_back":
                # The moderator took the game back to a step's opening: the
                # reopened step takes the next number whose links were never
                # revealed (no die is drawn twice), salts given for the open
                # step are void, and an ended game is open again. The
                # undone steps' draws were checked above and stay checked;
                # the state it restores is the Rust audit's to check.
                k = e.get("step")
                if k != open_step:
                    fails.append(f"entry seq {seq}: a rollback reopens as step {k}, where step {open_step} is "
                                 "the next whose dice were never drawn")
                undone = e.get("voided_steps", [])
                print(f"rolled back to step {e.get('to_step')}, going on as step {k} (entry seq {seq}): "
                      f"{e.get('reason', '')!r}; draws of undone steps {undone} count for no one")
                salts, ended = {}, False
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
                    if redacted and r in expect and r in got_salts:
                        continue     # the salt entries are withheld: nothing to compare with
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
    if redacted:
        notes.append("not checked (withheld from a public export while the game lasts): the salts given "
                     "(each step's list of salts is used as it stands), the links and draws of the private "
                     "streams; check the full export once the game has ended")
    return verdict(fails, notes, shown, "as far as a redacted export goes" if redacted else "")

def show(fails, start):
    for f in fails[start:]:
        print("  FAIL " + f)
    return len(fails)

def verdict(fails, notes, shown=0, scope=""):
    for n in notes:
        print("note: " + n)
    show(fails, shown)
    if fails:
        print(f"VERDICT: NOT VERIFIED ({len(fails)} problem{'s' if len(fails) != 1 else ''})")
        return 1
    print("VERDICT: verified" + (f" {scope}" if scope else ""))
    return 0

def usage_error(msg):
    print("error: " + msg, file=sys.stderr)
    return 2

# --------------------------------------------------------------- mail mode
#
# Reading what a mail client stored: Maildir folders, mbox files, single
# messages, and folders of any of them.

CLIENT_PREFIXES = ("dovecot", "courierimap")
CLIENT_SUFFIXES = (".msf", ".sqlite", ".json", ".dat")
CLIENT_NAMES = {"maildirfolder", "subscriptions", ".ds_store"}

def is_client_file(name):
    """Files a mail client keeps beside its mail (indexes, settings)."""
    low = name.lower()
    return low.startswith(CLIENT_PREFIXES) or low.endswith(CLIENT_SUFFIXES) or low in CLIENT_NAMES

def split_mbox(raw):
    """The messages of an mbox: each starts at a `From ` line that begins
    the file or follows a blank line (the separator is not part of it);
    `>From `, `>>From ` ... lose one `>` (mboxrd); the blank line before the
    next separator belongs to the file."""
    out, cur, blank = [], None, True
    for line in raw.splitlines(keepends=True):
        if blank and line.startswith(b"From "):
            if cur is not None:
                out.append(cur)
            cur, blank = [], False
            continue
        blank = line.rstrip(b"\r\n") == b""
        if cur is None:
            continue
        quoted = len(line) - len(line.lstrip(b">"))
        cur.append(line[1:] if quoted and line[quoted:].startswith(b"From ") else line)
    if cur is not None:
        out.append(cur)
    msgs = []
    for lines in out:
        m = b"".join(lines)
        if m.endswith(b"\r\n\r\n"):
            m = m[:-2]
        elif m.endswith(b"\n\n"):
            m = m[:-1]
        msgs.append(m)
    return msgs

def looks_like_mail(raw):
    """Does the file start with a header line (`Name: value`)?"""
    first = raw.split(b"\n", 1)[0]
    name, sep, _ = first.partition(b":")
    return bool(sep and name) and all(0x21 <= c <= 0x7E for c in name)

def gather(paths):
    """Every stored message under `paths`: ([(name, raw bytes)], files that
    are not mail).  A path given that cannot be read is a UsageError; inside
    a folder, such a file is counted among the files that are not mail."""
    messages, other = [], [0]
    def take(name, raw):
        if raw.startswith(b"From "):
            for i, m in enumerate(split_mbox(raw), 1):
                messages.append((f"{name}#{i}", m))
        elif looks_like_mail(raw):
            messages.append((name, raw))
        else:
            other[0] += 1
    def walk(d, depth):
        if depth > 16:        # a link loop or a pathological tree stops somewhere
            return
        try:
            names = sorted(os.listdir(d), key=lambda n: os.fsencode(n))
        except OSError:
            other[0] += 1
            return
        maildir = os.path.isdir(os.path.join(d, "cur")) or os.path.isdir(os.path.join(d, "new"))
        for n in names:
            p = os.path.join(d, n)
            if os.path.islink(p):
                continue
            if os.path.isdir(p):
                if not (maildir and n == "tmp"):     # deliveries not yet finished
                    walk(p, depth + 1)
            elif os.path.isfile(p):
                if is_client_file(n):
                    other[0] += 1
                    continue
                try:
                    with open(p, "rb") as f:
                        raw = f.read()
                except OSError:
                    other[0] += 1
                    continue
                take(p, raw)
    for p in paths:
        if os.path.isdir(p):
            if not os.access(p, os.R_OK | os.X_OK):
                raise UsageError(f"cannot read {p}: permission denied")
            walk(p, 0)
        else:
            try:
                with open(p, "rb") as f:
                    raw = f.read()
            except OSError as e:
                raise UsageError(f"cannot read {p}: {e.strerror}")
            take(p, raw)
    return messages, other[0]

# What one of adjutant's mails says.

class Mail:
    def __init__(self, name, game):
        self.name, self.game = name, game
        self.to, self.seq, self.step, self.subject, self.date = "", None, None, "", None
        self.role = None          # None: not said; ("role", r) or ("moderator", None)
        self.anchors = []         # [{"base", "chain_len", "anchors": {stream: bytes}}]
        self.dice = []            # [{"step", "salts", "links": {stream: bytes}, "draws": [...]}]
        self.reveal = []          # [(stream, k, bytes)]
        self.tip = None           # (entry, hash) of the JOURNAL block
        self.ack = None           # (step, salt or None): an acknowledgement of accepted orders

    def describe(self):
        """The mail as a person finds it again: its date, step and subject."""
        when = "unknown date"
        if self.date is not None:
            d = datetime.datetime.fromtimestamp(self.date, datetime.timezone.utc)
            when = f"{d.day} {d:%b %Y %H:%M} UTC"
        step = f", step {self.step}" if self.step is not None else ""
        return f"your mail of {when}{step} (\"{self.subject}\", {self.name})"

BLOCK_NAMES = ("ANCHORS", "DICE", "REVEAL", "JOURNAL")
HEX64 = re.compile(r"[0-9a-fA-F]{64}")

def cut_blocks(body, name):
    """The text between each BEGIN and END line of block `name`; a
    ValueError when one is cut short."""
    begin, end = f"-----BEGIN ADJUTANT {name}-----", f"-----END ADJUTANT {name}-----"
    out, i = [], 0
    while (j := body.find(begin, i)) >= 0:
        k = body.find(end, j + len(begin))
        if k < 0:
            raise ValueError(f"its {name} block is cut short (no END line): the mail is incomplete")
        out.append(body[j + len(begin):k])
        i = k + len(end)
    return out

def key_value(line, key):
    """`key: value` -> value (trimmed), else None."""
    if line.startswith(key) and line[len(key):len(key) + 1] == ":":
        return line[len(key) + 1:].strip()
    return None

def link_of(h, what, line):
    if not HEX64.fullmatch(h.strip()):
        raise ValueError(f"the {what} in the line {line!r} is not 64 hex digits")
    return bytes.fromhex(h.strip())

def number(v, what):
    if v is None or not v.isdigit():
        raise ValueError(f"{what} {v!r} is not a number")
    return int(v)

def check_scheme(lines, name):
    for l in lines:
        v = key_value(l, "scheme")
        if v is not None and v != "dice-v1":
            raise ValueError(f"its {name} block is of scheme {v!r}; this verifier knows dice-v1 only")

def read_draw(line):
    """draw <stream> <n> <kind> <sides> <r1,r2,...>[ declared] | <label>"""
    head, sep, label = line[5:].partition(" | ")
    t = head.split(" ")
    declared = len(t) == 6 and t[5] == "declared"
    if not sep or len(t) not in (5, 6) or (len(t) == 6 and not declared) or not t[1].isdigit() \
            or t[2] not in ("die", "shuffle", "pool") or not t[3].isdigit() \
            or not all(x.isdigit() for x in t[4].split(",") if t[4]):
        raise ValueError(f"cannot read the draw line {line!r}")
    result = tuple(int(x) for x in t[4].split(",")) if t[4] else ()
    return {"stream": t[0], "n": int(t[1]), "kind": t[2], "sides": int(t[3]), "result": result,
            "declared": declared, "label": label.rstrip()}

def read_blocks(m, body):
    """Fill `m` from the mail's text.  A line of a block that cannot be read
    makes the whole mail unreadable (a client mangled it): a ValueError,
    and the mail is skipped, never taken for a lie.  Lines a block does not
    need are ignored (a later adjutant may add some)."""
    for name in BLOCK_NAMES:
        cut_blocks(body, name)
    for l in body.split("\n"):
        if l.startswith("You play: "):
            r = l[len("You play: "):].strip().rstrip(".").strip()
            m.role = ("moderator", None) if r == "moderator" else ("role", r)
            break
    for text in cut_blocks(body, "ANCHORS"):
        lines = text.split("\n")
        check_scheme(lines, "ANCHORS")
        a = {"base": 0, "chain_len": 0, "anchors": {}}
        for l in lines:
            if (v := key_value(l, "base")) is not None:
                a["base"] = number(v, "its ANCHORS block has the base")
            elif (v := key_value(l, "chain-length")) is not None:
                a["chain_len"] = number(v, "its ANCHORS block has the chain length")
            elif l.startswith("anchor "):
                s, sep, h = l[7:].rpartition(": ")
                if not sep:
                    raise ValueError(f"cannot read the line {l!r}")
                a["anchors"][s] = link_of(h, "anchor", l)
        m.anchors.append(a)
    for text in cut_blocks(body, "DICE"):
        lines = text.split("\n")
        check_scheme(lines, "DICE")
        b = {"step": None, "salts": {}, "links": {}, "draws": []}
        for l in lines:
            if (v := key_value(l, "step")) is not None:
                b["step"] = int(v) if v.isdigit() else None
            elif l.startswith("salt "):
                role, sep, v = l[5:].partition(":")
                if not sep:
                    raise ValueError(f"cannot read the line {l!r}")
                b["salts"][role] = v.strip()    # "salt france:" once a client dropped the space
            elif l.startswith("link "):
                s, sep, h = l[5:].rpartition(": ")
                if not sep:
                    raise ValueError(f"cannot read the line {l!r}")
                b["links"][s] = link_of(h, "link", l)
            elif l.startswith("draw "):
                b["draws"].append(read_draw(l))
        if b["step"] is None:
            raise ValueError("its DICE block names no step")
        m.dice.append(b)
    for text in cut_blocks(body, "REVEAL"):
        lines = text.split("\n")
        check_scheme(lines, "REVEAL")
        for l in lines:
            if not l.startswith("link "):      # link <stream> <k>: <hex>
                continue
            head, sep, h = l[5:].rpartition(": ")
            s, sp, k = head.rpartition(" ")
            if not sep or not sp or not k.isdigit():
                raise ValueError(f"cannot read the REVEAL line {l!r}")
            m.reveal.append((s, int(k), link_of(h, "link", l)))
    for text in cut_blocks(body, "JOURNAL"):
        entry = h = None
        for l in text.split("\n"):
            if (v := key_value(l, "entry")) is not None:
                entry = int(v) if v.isdigit() else None
            elif (v := key_value(l, "hash")) is not None:
                h = v
        if entry is None or h is None or not HEX64.fullmatch(h):
            raise ValueError("its JOURNAL block cannot be read")
        m.tip = (entry, h)
    # An acknowledgement of accepted orders: subject "[g] step k: accepted".
    i = m.subject.find("] step ")
    if i >= 0:
        k, sep, tail = m.subject[i + 7:].partition(":")
        if sep and tail.strip().startswith("accepted") and k.strip().isdigit():
            salt = None
            for l in body.split("\n"):
                if l.strip().startswith("Your salt for this step: "):
                    salt = l.strip()[len("Your salt for this step: "):].strip()
                    break
            m.ack = (int(k.strip()), salt)

GAME_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")

def seq_of_id(mid, game):
    """The journal entry one of our Message-IDs names: <game>.<seq>-<tag>.<n>
    (or .<n>.s<k>; <game>.<seq>.<n>... from an older adjutant), then @domain."""
    local = mid.strip().strip("<>").split("@")[0]
    if not local.startswith(game + "."):
        return None
    first = local[len(game) + 1:].split(".")[0].split("-")[0]
    return int(first) if first.isdigit() else None

def header(msg, name):
    try:
        v = msg.get(name)
        return None if v is None else str(v)
    except Exception:       # a header the parser cannot make sense of
        return None

def read_message(name, raw):
    """("ours", Mail) | ("not ours", None) | ("skipped", (game or None, why))."""
    def skipped(game, why):
        return "skipped", (game, why)
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
    except Exception:
        return skipped(None, "it cannot be read as a mail")
    def plain():
        try:
            part = msg.get_body(preferencelist=("plain",))
            return None if part is None else (part.get_payload(decode=True) or b"").decode("utf-8", "replace")
        except Exception:
            return None
    game = header(msg, "X-Adjutant-Game")
    if game is None:
        # A forward or a copy of one of ours has lost the headers that say
        # whose it is: what it holds cannot be trusted as ours.
        text = plain() or ""
        if b"-----BEGIN ADJUTANT " in raw or "-----BEGIN ADJUTANT " in text:
            return skipped(None, "it holds an ADJUTANT block but not adjutant's headers (a forward or a copy); "
                                 "only the mail adjutant sent can be checked")
        return "not ours", None
    game = game.strip()
    if not GAME_ID.fullmatch(game):
        return skipped(None, "its X-Adjutant-Game header names no game id")
    try:
        part = msg.get_body(preferencelist=("plain",))
    except Exception:
        return skipped(game, "its structure cannot be read")
    text = None
    if part is not None:
        try:
            text = part.get_content()
        except Exception:     # a charset Python does not know: the bytes, read as UTF-8
            try:
                text = (part.get_payload(decode=True) or b"").decode("utf-8", "replace")
            except Exception:
                return skipped(game, "its text cannot be decoded")
    if not isinstance(text, str):
        return skipped(game, "it has no plain-text part (an HTML-only copy): the blocks cannot be read")
    m = Mail(name, game)
    m.subject = header(msg, "Subject") or ""
    mid = header(msg, "Message-ID")
    m.seq = seq_of_id(mid, game) if mid else None
    st = (header(msg, "X-Adjutant-Step") or "").strip()
    m.step = int(st) if st.isdigit() else None
    try:
        to = msg.get("To")
        addrs = [a.addr_spec for a in to.addresses] if to is not None else []
        m.to = addrs[0].lower() if addrs else ""
    except Exception:
        m.to = ""
    try:
        d = email.utils.parsedate_to_datetime(header(msg, "Date"))
        m.date = int((d if d.tzinfo else d.replace(tzinfo=datetime.timezone.utc)).timestamp())
    except Exception:
        m.date = None
    try:
        read_blocks(m, text.replace("\r\n", "\n"))
    except ValueError as e:
        return skipped(game, str(e))
    return "ours", m

# Checking one game's mails.

class GameResult:
    def __init__(self, game):
        self.game, self.lines, self.failures, self.incomplete = game, [], 0, None
        self.skipped, self.mails, self.dice, self.last_entry, self.notes = [], 0, 0, None, []
    def ok(self, s):
        self.lines.append(s)
    def fail(self, s):
        self.failures += 1
        self.lines.append("FAIL " + s)

def base_text(k0, renewed):
    return ("the anchor" if k0 == 0 else f"the anchor renewed after step {k0}" if k0 in renewed
            else f"the link of step {k0}")

def check_recipient(game, to, mails, res):
    """The dice one recipient was shown: their streams, their salts."""
    who = to or "the mails with no recipient"
    role = next((m.role for m in mails if m.role is not None), None)
    welcome = next(((m, a) for m in mails for a in m.anchors if a["base"] == 0), None)
    if welcome is None:
        res.ok(f"{who}: {len(mails)} mail(s), no welcome mail among them: dice not checked")
        return
    wmail, first = welcome
    anchors, chain_len = first["anchors"], first["chain_len"]
    renewed = {}
    for m in mails:
        for a in m.anchors:
            if a["base"] > 0:
                renewed[a["base"]] = a["anchors"]
    # The anchors came before the first accepted orders: by the journal
    # entries the Message-IDs name, else by the dates.
    ack = next((m for m in mails if m.ack is not None), None)
    if ack is not None:
        if wmail.seq is not None and ack.seq is not None:
            before = wmail.seq <= ack.seq
        elif wmail.date is not None and ack.date is not None:
            before = wmail.date <= ack.date
        else:
            before = True
        if not before:
            res.fail(f"{who}: the dice anchors ({wmail.name}) were sent after your first accepted orders "
                     f"({ack.name}): they were not committed in advance")
    # Each step's block once; a step shown twice must be shown the same.
    steps = {}
    for m in mails:
        for b in m.dice:
            k = b["step"]
            if k in steps and steps[k][0] != b:
                res.fail(f"{who}: step {k}: {m.name} and {steps[k][1].name} show the dice of the step differently")
            steps.setdefault(k, (b, m))
    own_salts = {}
    for m in mails:
        if m.ack is not None and m.ack[1] is not None:
            own_salts[m.ack[0]] = (m.ack[1], m)
    # Every link seen, by stream and step: from the game-over REVEAL and
    # from each step's block; one link, one value.
    links = {}
    def see(s, k, l, m):
        by = links.setdefault(s, {})
        if k in by and by[k][0] != l:
            res.fail(f"{who}: step {k}, stream {s}: {m.name} and {by[k][1].name} show two different links")
        by[k] = (l, m)
    for m in mails:
        for s, k, l in m.reveal:
            see(s, k, l, m)
    for k, (b, m) in sorted(steps.items()):
        for s, l in b["links"].items():
            see(s, k, l, m)
    # One chain per stream and base: the welcome anchor's, then each
    # renewal's; each link hashes back within its own chain.
    base_of = lambda k: max([0] + [b for b in renewed if b < k])
    bad = set()
    for s, by in sorted(links.items()):
        if s not in anchors:
            res.fail(f"{who}: stream {s} has links but no anchor in the welcome mail ({wmail.name})")
            continue
        for base in sorted({base_of(k) for k in by}):
            start = anchors[s] if base == 0 else renewed[base].get(s)
            chain = sorted((k, l) for k, (l, _) in by.items() if base_of(k) == base)
            if start is None:
                res.fail(f"{who}, stream {s}: no anchor in the renewal mail for the steps after {base}")
            else:
                chain.insert(0, (base, start))
            if not chain:
                continue
            for k, k0 in check_chain(chain).items():
                res.fail(f"{who}: step {k}, stream {s} ({by[k][1].name}): the link does not hash back to "
                         + base_text(k0, renewed))
                bad.add((s, k))
            if chain_len and chain[-1][0] > base + chain_len:
                res.fail(f"{who}: stream {s}: a link of step {chain[-1][0]}, past the chains of length {chain_len}")
    # Salts and draws, step by step.
    roles = sorted(s[5:] for s in anchors if s.startswith("role:"))
    mine = role[1] if role and role[0] == "role" else None
    regenerated = 0
    for k, (b, m) in sorted(steps.items()):
        if roles and sorted(b["salts"]) != roles:
            res.fail(f"{who}: step {k} ({m.name}): salts listed for {', '.join(sorted(b['salts'])) or 'no role'}, "
                     f"not for every role of the game ({', '.join(roles)})")
        if mine is not None:
            shown = b["salts"].get(mine)
            if shown is None:
                res.fail(f"{who}: step {k} ({m.name}): your salt ({mine}) is not in the list")
            elif k in own_salts and own_salts[k][0] != shown:
                res.fail(f"{who}: step {k} ({m.name}): your salt was {own_salts[k][0]!r} ({own_salts[k][1].name}) "
                         f"but the list shows {shown!r}")
        by_stream = {}
        for d in b["draws"]:
            by_stream.setdefault(d["stream"], []).append(d)
        for s, ds in sorted(by_stream.items()):
            gaps = [(i, d) for i, d in enumerate(ds) if d["n"] != i]
            if gaps:
                i, d = gaps[0]
                res.fail(f"{who}: step {k}, stream {s} ({m.name}): draw counter {d['n']} where {i} was expected "
                         f"(a gap" + (f", and {len(gaps) - 1} more" if len(gaps) > 1 else "") + ")")
            if any(d["declared"] for d in ds):
                res.notes.append(f"{who}: step {k}, stream {s}: {len(ds)} declared draw(s), not verifiable")
                continue
            if s not in b["links"]:
                res.fail(f"{who}: step {k}, stream {s} ({m.name}): draws shown without their link")
                continue
            if (s, k) in bad or gaps:
                continue
            stream = Stream(seed_of(game, k, s, b["links"][s], b["salts"]))
            for d in ds:
                where = f"{who}: step {k}, stream {s}, draw {d['n']} ({d['label']}) in {m.name}"
                result = list(d["result"])
                if malformed(d["kind"], d["sides"], result):
                    res.fail(f"{where}: no draw of dice-v1 gives {d['kind']} {d['sides']} {fmt(result)}; "
                             "the stream cannot be followed past it")
                    break
                got = stream.draw(d["kind"], d["sides"], len(result))
                if got == result:
                    regenerated += 1
                else:
                    res.fail(f"{where}: shows {fmt(result)}, dice-v1 gives {fmt(got)}")
    res.dice += regenerated
    said = {None: "", "moderator": " (the moderator)"}.get(role and role[0], f" ({mine})")
    res.ok(f"{who}{said}: {len(mails)} mail(s); {len(steps)} step(s) of dice, {regenerated} draw(s) regenerated "
           "from their seeds; every link back to the anchors of the welcome mail"
           + (f", chains renewed after step(s) {', '.join(map(str, sorted(renewed)))}" if renewed else "")
           + ", sent before the first accepted orders")

def published_hashes(entries):
    """Entry number -> hash as a published journal holds them, and the last
    entry it covers: in a public export each entry (a withheld one as a
    stub) names its place in the game's journal (`source`); a game's own
    journal is its own."""
    exported = isinstance(entries[0].get("export"), dict)
    out = {}
    for e in entries:
        if exported:
            src = e.get("source")
            if isinstance(src, dict) and isinstance(src.get("seq"), int) and isinstance(src.get("hash"), str):
                out[src["seq"]] = src["hash"]
        elif isinstance(e.get("seq"), int):
            out[e["seq"]] = str(e.get("hash"))
    return out, max(out, default=0)

def check_tips(mails, journal, res):
    """The journal tips the mails carry: no two mails name one entry with two
    hashes, and a published journal holds every one."""
    tips = {}
    for m in mails:
        if m.tip is not None:
            tips.setdefault(m.tip[0], []).append((m.tip[1], m))
    for k, seen in sorted(tips.items()):
        h0, m0 = seen[0]
        other = next((m for h, m in seen if h != h0), None)
        if other is not None:
            res.fail(f"journal entry {k} has one hash in {m0.describe()} and another in {other.describe()}: "
                     "the operator told two different histories")
    if not tips:
        res.ok("no journal tip in these mails: the history is not witnessed (mails of an older adjutant)")
        return
    last = max(tips)
    res.last_entry = last
    witnessed = sum(len(v) for v in tips.values())
    if journal is None:
        res.ok(f"history: {witnessed} mail(s) witness the journal up to entry {last}, and none contradicts "
               "another; give the journal the operator publishes with --journal to hold it to them")
        return
    jname, entries = journal
    try:
        broken, _ = hash_chain(entries)
    except UnknownFormat as u:
        broken = [f"its format {u.args[0]!r} is not one this verifier knows"]
    if broken:
        res.fail(f"the published journal {jname} is not a journal: {broken[0]}")
        return
    hashes, end = published_hashes(entries)
    past_end = 0
    for k, seen in sorted(tips.items()):
        h, m = seen[-1]
        if k in hashes:
            if hashes[k] != h:
                res.fail(f"{m.describe()} shows journal entry {k} with hash {h[:16]}..., but the published journal "
                         f"{jname} has another: the history was changed after this mail went out")
        elif k > end:
            past_end += 1
        else:
            res.fail(f"{m.describe()} shows journal entry {k}, which the published journal {jname} does not hold: "
                     "entries were removed or the history rewritten")
    if past_end:
        m = tips[last][-1][1]
        res.fail(f"the published journal {jname} stops at entry {end}, but {m.describe()} already showed entry "
                 f"{last}" + (f" ({past_end} of your mails show entries past its end)" if past_end > 1 else "")
                 + ": entries were removed from its end")
    else:
        res.ok(f"history: the published journal {jname} holds every tip of {witnessed} mail(s), up to entry {last}")

def check_game(game, mails, journal):
    """One game's mails, in the order they were sent."""
    res = GameResult(game)
    res.mails = len(mails)
    if not mails:
        res.incomplete = "no mail of this game could be read"
        return res
    by_to = {}
    for m in mails:
        by_to.setdefault(m.to, []).append(m)
    welcome = None    # (recipient, anchors, mail) of the first recipient with a welcome mail
    for to, ms in sorted(by_to.items()):
        first = next(((a, m) for m in ms for a in m.anchors if a["base"] == 0), None)
        if first is not None and welcome is not None and first[0]["anchors"] != welcome[1]["anchors"]:
            res.fail(f"the welcome mails to {to} ({first[1].name}) and to {welcome[0]} ({welcome[2].name}) show "
                     "different dice anchors: the operator committed to two sets of dice")
        if welcome is None and first is not None:
            welcome = (to, first[0], first[1])
        check_recipient(game, to, ms, res)
    if welcome is None:
        res.incomplete = ("no welcome mail (with the ANCHORS block) of this game is among these mails, so its "
                          "dice cannot be checked: add it (it was the game's first mail to you)")
    check_tips(mails, journal, res)
    return res

def verify_mail(paths, journal_paths=()):
    try:
        messages, other_files = gather(paths)
        published = [(p, read_journal(p)) for p in journal_paths]
    except UsageError as e:
        return usage_error(str(e))
    mails, skipped, ignored = [], [], 0
    for name, raw in messages:
        what, x = read_message(name, raw)
        if what == "ours":
            mails.append(x)
        elif what == "not ours":
            ignored += 1
        else:
            skipped.append((x[0], name, x[1]))
    games = {m.game for m in mails}
    journals = {}
    for p, entries in published:
        g = entries[0].get("game")
        if not isinstance(g, str):
            return usage_error(f"{p} is not a journal of adjutant's (its first entry names no game)")
        if g not in games:
            return usage_error(f"{p} is the journal of game {g}, of which these mails hold none")
        journals.setdefault(g, (p, entries))
    by_game = {}
    for m in mails:
        by_game.setdefault(m.game, []).append(m)
    skipped_of, loose = {}, []
    for g, name, why in skipped:
        if g is None:
            loose.append((name, why))
        else:
            by_game.setdefault(g, [])
            skipped_of.setdefault(g, []).append((name, why))
    results = []
    for g, ms in sorted(by_game.items()):
        # The order they were sent in: the journal entry each Message-ID
        # names (never the Date: a pass sends many in one second).
        ms.sort(key=lambda m: (m.seq if m.seq is not None else math.inf,
                               m.date if m.date is not None else -math.inf, m.name))
        r = check_game(g, ms, journals.get(g))
        r.skipped = skipped_of.get(g, [])
        results.append(r)
    for r in results:
        state = (f"NOT VERIFIED ({r.failures} failure(s))" if r.failures else
                 "NOT CHECKED" if r.incomplete else "VERIFIED")
        last = f", the history up to journal entry {r.last_entry}" if r.last_entry is not None else ""
        print(f"game {r.game}: {state}: {r.mails} mail(s), {r.dice} draw(s) regenerated{last}")
        for l in r.lines:
            print("  " + l)
        if r.incomplete:
            print("  " + r.incomplete)
        for n in r.notes:
            print("  note: " + n)
        for name, why in r.skipped:
            print(f"  skipped {name}: {why}")
    for name, why in loose:
        print(f"skipped {name}: {why}")
    if ignored or other_files:
        print(f"ignored: {ignored} mail(s) not from an adjutant game, {other_files} file(s) that are not mail")
    if not results:
        print(f"VERDICT: nothing to verify: no mail of an adjutant game among these ({len(messages)} message(s) read)")
        return 3
    failed = sum(1 for r in results if r.failures)
    unchecked = sum(1 for r in results if not r.failures and r.incomplete)
    if failed:
        print(f"VERDICT: NOT VERIFIED: {failed} of {len(results)} game(s) failed a check "
              "(the FAIL lines say what and which mail)")
        return 1
    if unchecked:
        print(f"VERDICT: NOT CHECKED: nothing contradicts, but {unchecked} of {len(results)} game(s) "
              "could not be checked (said above)")
        return 4
    print(f"VERDICT: VERIFIED: {len(results)} game(s), every check held")
    return 0

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
    ap = argparse.ArgumentParser(
        description="Verify adjutant dice-v1 and journal tips: a journal, mails, or the test vectors.",
        epilog="exit status: 0 verified, 1 a check failed, 2 bad usage or unreadable input; with --mail also "
               "3 no mail of an adjutant game found, 4 nothing failed but a game could not be checked")
    ap.add_argument("journal", nargs="*", metavar="JOURNAL.toml",
                    help="a game's journal.toml or a public export (with --mail: more mail paths)")
    ap.add_argument("--mail", nargs="+", metavar="PATH",
                    help="the mails adjutant sent: Maildir or mail folders, mbox files, .eml files")
    ap.add_argument("--journal", dest="published", action="append", default=[], metavar="FILE",
                    help="with --mail: a journal the operator published (a game's journal or its public "
                         "export), held to the journal tips of its game's mails; repeatable")
    ap.add_argument("--vectors", action="store_true", help="check the dice-v1 test vectors")
    a = ap.parse_args(argv)
    if a.published and not a.mail:
        ap.print_usage(sys.stderr)
        print("error: --journal goes with --mail: the journal is held to the tips of the mails", file=sys.stderr)
        return 2
    if a.mail:
        if a.vectors:
            return usage_error("give exactly one of JOURNAL.toml, --mail PATH..., --vectors")
        return verify_mail(a.mail + a.journal, a.published)
    if (len(a.journal) == 1) == bool(a.vectors) or len(a.journal) > 1:
        ap.print_usage(sys.stderr)
        print("error: give exactly one of JOURNAL.toml, --mail PATH..., --vectors", file=sys.stderr)
        return 2
    if a.vectors:
        return vectors()
    return verify_journal(a.journal[0])

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
