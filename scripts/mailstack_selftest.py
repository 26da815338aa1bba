#!/usr/bin/env python3
"""End-to-end check of the loopback mail stack made by scripts/mailstack.sh.

Usage:
  mailstack_selftest.py DIR          check a stack already started in DIR
                                     (reads DIR/env); leaves it running
  mailstack_selftest.py DIR --stop   ... then stop it and check that no process
                                     it started is left
  mailstack_selftest.py              self-contained: start a stack in a fresh
                                     temporary directory, check, stop, verify,
                                     remove the directory (what CI should run)

Python 3 standard library only.  Exits 0 when every check passed and prints
the time each phase took.  Must run as root (mailstack.sh does).
"""

import imaplib
import os
import shlex
import shutil
import smtplib
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import uuid
from email.message import EmailMessage

HERE = os.path.dirname(os.path.abspath(__file__))
MAILSTACK = os.path.join(HERE, "mailstack.sh")

TIMINGS = []  # (phase, seconds)


class Phase:
    """Times a phase and records it; a failure inside propagates."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.t0 = time.monotonic()
        return self

    def __exit__(self, exc_type, exc, tb):
        dt = time.monotonic() - self.t0
        TIMINGS.append((self.name, dt))
        status = "ok " if exc_type is None else "FAIL"
        print(f"[{status}] {self.name:<58} {dt:7.3f} s", flush=True)
        return False


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def read_env(d):
    """DIR/env holds `export NAME=value` lines quoted for the shell."""
    env = {}
    with open(os.path.join(d, "env")) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("export "):
                continue
            name, _, value = line[len("export "):].partition("=")
            parts = shlex.split(value)
            env[name] = parts[0] if parts else ""
    return env


def mailstack(cmd, d):
    # Output is captured on purpose: this is what would hang if a daemon kept
    # the script's stdio open (notes, pitfall 4).  The timeout turns such a
    # hang into a failure.
    r = subprocess.run([MAILSTACK, cmd, d], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        raise AssertionError(f"mailstack.sh {cmd} exited {r.returncode}")


def read_pids(d):
    """{name: pid} from DIR/pids; the PIDs are also session ids (setsid)."""
    out = {}
    try:
        with open(os.path.join(d, "pids")) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    out[parts[0]] = int(parts[1])
    except FileNotFoundError:
        pass
    return out


def live_in_sessions(sids):
    """Non-zombie processes whose session id is one of sids (zombies count as
    gone: PID 1 reaps slowly on this kind of machine)."""
    left = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        state, sid = fields[0], int(fields[3])  # fields 3 and 6 of stat
        if sid in sids and state not in ("Z", "X"):
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                cmd = "?"
            left.append(f"{entry} ({cmd.strip()})")
    return left


def port_open(host, port):
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


class Stack:
    def __init__(self, d):
        self.dir = d
        e = read_env(d)
        self.env = e
        self.host = e.get("MAILSTACK_HOST", "127.0.0.1")
        self.smtp = int(e["MAILSTACK_SMTP_PORT"])
        self.submission = int(e["MAILSTACK_SUBMISSION_PORT"])
        self.smtps = int(e["MAILSTACK_SMTPS_PORT"]) if "MAILSTACK_SMTPS_PORT" in e else None
        self.imap = int(e["MAILSTACK_IMAP_PORT"])
        self.imaps = int(e["MAILSTACK_IMAPS_PORT"])
        self.domain = e["MAILSTACK_DOMAIN"]
        self.password = e["MAILSTACK_PASSWORD"]
        self.ca = e["MAILSTACK_CA"]
        self.sessions_seen = set()
        self.note_pids()

    def note_pids(self):
        self.sessions_seen.update(read_pids(self.dir).values())

    def tls(self):
        ctx = ssl.create_default_context(cafile=self.ca)
        # What Python 3.13+ enables by default; a certificate that passes this
        # is also fine for rustls.
        ctx.verify_flags |= ssl.VERIFY_X509_STRICT
        return ctx

    def addr(self, user):
        return f"{user}@{self.domain}"

    # -- SMTP -------------------------------------------------------------
    def send(self, to, subject, port=None, login=None, sender=None):
        msg = EmailMessage()
        msg["From"] = sender or self.addr("gm")
        msg["To"] = to
        msg["Subject"] = subject
        msg["Message-ID"] = f"<{uuid.uuid4().hex}@{self.domain}>"
        msg.set_content(f"selftest body for {subject}\n")
        with smtplib.SMTP(self.host, port or self.smtp, local_hostname="selftest.local", timeout=10) as s:
            s.ehlo()
            check(s.has_extn("starttls"), "SMTP does not offer STARTTLS")
            s.starttls(context=self.tls())
            peer = s.sock.getpeercert()
            cn = dict(x[0] for x in peer["subject"]).get("commonName")
            check(cn == "localhost", f"SMTP served certificate CN={cn!r}, expected the leaf")
            s.ehlo()
            if login:
                s.login(login, self.password)
            s.send_message(msg)
        return msg

    # -- IMAP -------------------------------------------------------------
    def imap_login(self, user, mode="starttls"):
        if mode == "imaps":
            m = imaplib.IMAP4_SSL(self.host, self.imaps, ssl_context=self.tls(), timeout=10)
        else:
            m = imaplib.IMAP4(self.host, self.imap, timeout=10)
            if mode == "starttls":
                check("STARTTLS" in m.capabilities, "IMAP does not offer STARTTLS")
                m.starttls(ssl_context=self.tls())
        m.login(self.addr(user), self.password)
        return m

    def wait_for(self, m, subject, mailbox="INBOX", timeout=10.0):
        """Poll until a message with this subject is in mailbox; return its UID."""
        typ, _ = m.select(mailbox)
        check(typ == "OK", f"SELECT {mailbox} failed")
        deadline = time.monotonic() + timeout
        while True:
            typ, data = m.uid("SEARCH", None, "HEADER", "Subject", f'"{subject}"')
            uids = data[0].split() if typ == "OK" and data and data[0] else []
            if uids:
                return uids[-1]
            if time.monotonic() > deadline:
                raise AssertionError(f"message {subject!r} not in {mailbox} after {timeout}s")
            time.sleep(0.02)
            m.noop()


def run_checks(st):
    token = uuid.uuid4().hex[:10]
    rcpt = f"game+abc.def@{st.domain}"

    with Phase("SMTP 2525 STARTTLS send to game+abc.def@ (no auth)"):
        subj = f"selftest plain {token}"
        st.send(rcpt, subj)
        t_sent = time.monotonic()

    with Phase("IMAP 1143 STARTTLS login game@, message arrives"):
        m = st.imap_login("game")
        uid = st.wait_for(m, subj)
        TIMINGS.append(("  (of which SMTP accept -> visible over IMAP)", time.monotonic() - t_sent))

    with Phase("IMAP BODY.PEEK[] content, \\Seen untouched, CAPABILITY"):
        typ, data = m.uid("FETCH", uid, "(FLAGS BODY.PEEK[])")
        check(typ == "OK", "FETCH failed")
        raw = data[0][1]
        check(subj.encode() in raw, "fetched body lacks the subject")
        check(b"Delivered-To: game@" + st.domain.encode() in raw or b"game+abc.def@" in raw,
              "no delivery header for game")
        check(b"\\Seen" not in data[0][0], "BODY.PEEK[] set \\Seen")
        typ, caps = m.capability()
        caps = caps[0].decode().upper().split()
        for c in ("IDLE", "MOVE", "UIDPLUS"):
            check(c in caps, f"IMAP CAPABILITY lacks {c}: {caps}")
        # The detail part must not create a separate mailbox.
        home = os.path.join(st.dir, "mail", st.domain, "game", "Maildir")
        check(os.path.isdir(home), f"no Maildir at {home}")

    with Phase("IMAP MOVE to a new mailbox"):
        m.create("Archive")
        typ, _ = m.uid("MOVE", uid, "Archive")
        check(typ == "OK", "UID MOVE failed")
        st.wait_for(m, subj, mailbox="Archive", timeout=2)
        m.select("INBOX")

    with Phase("IMAP IDLE push of a new message"):
        # imaplib has no idle() before Python 3.14: speak the protocol.
        m.send(b"I1 IDLE\r\n")
        line = m.readline()
        check(line.startswith(b"+"), f"IDLE not accepted: {line!r}")
        subj2 = f"selftest idle {token}"
        t0 = time.monotonic()
        st.send(rcpt, subj2)
        m.sock.settimeout(10)
        while True:
            line = m.readline()
            check(line, "connection closed during IDLE")
            if line.startswith(b"*") and b"EXISTS" in line:
                break
        TIMINGS.append(("  (of which SMTP send start -> IDLE EXISTS)", time.monotonic() - t0))
        m.send(b"DONE\r\n")
        while not m.readline().startswith(b"I1 "):
            pass
        m.sock.settimeout(10)
        m.logout()

    with Phase("IMAPS 1993 implicit TLS login alice@"):
        m = st.imap_login("alice", mode="imaps")
        m.select("INBOX")
        m.logout()

    with Phase("IMAP wrong password, then good login is not delayed"):
        m = imaplib.IMAP4(st.host, st.imap, timeout=10)
        try:
            m.login(st.addr("bob"), "wrong")
            raise AssertionError("wrong password accepted")
        except imaplib.IMAP4.error:
            pass
        m.logout()
        t0 = time.monotonic()
        m = st.imap_login("bob", mode="plain")
        m.logout()
        dt = time.monotonic() - t0
        check(dt < 2, f"login after a failed one took {dt:.1f}s (auth penalty active?)")

    with Phase("SMTP 2587 AUTH alice@ after STARTTLS, send to bob@"):
        # AUTH must not be offered before STARTTLS, and mail without AUTH refused.
        with smtplib.SMTP(st.host, st.submission, timeout=10) as s:
            s.ehlo()
            check(not s.has_extn("auth"), "2587 offers AUTH before STARTTLS")
            s.starttls(context=st.tls())
            s.ehlo()
            check(s.has_extn("auth"), "2587 offers no AUTH after STARTTLS")
            code, _ = s.mail(st.addr("alice"))
            code, _ = s.rcpt(st.addr("bob"))
            check(code >= 500, f"2587 accepted a recipient without AUTH ({code})")
        subj3 = f"selftest submission {token}"
        st.send(st.addr("bob"), subj3, port=st.submission, login=st.addr("alice"),
                sender=st.addr("alice"))
        m = st.imap_login("bob")
        st.wait_for(m, subj3)
        m.logout()

    if st.smtps:
        with Phase("SMTP 2465 implicit TLS AUTH carol@"):
            with smtplib.SMTP_SSL(st.host, st.smtps, context=st.tls(), timeout=10) as s:
                s.login(st.addr("carol"), st.password)

    with Phase("mail to a foreign domain is refused, nothing leaves"):
        # default_transport = error: smtpd already rejects the RCPT (5xx), so
        # the sender learns at once and no bounce is generated.
        try:
            st.send("someone@example.com", f"selftest foreign {token}", sender=st.addr("mallory"))
            raise AssertionError("foreign recipient accepted")
        except smtplib.SMTPRecipientsRefused as e:
            code = list(e.recipients.values())[0][0]
            check(500 <= code < 600, f"foreign recipient refused with {code}, expected 5xx")

    # -- outages ----------------------------------------------------------
    old = read_pids(st.dir)
    with Phase("stop-imap"):
        mailstack("stop-imap", st.dir)
        check(not port_open(st.host, st.imap), "IMAP port still open after stop-imap")
        check("dovecot" not in read_pids(st.dir), "DIR/pids still lists dovecot")
        left = live_in_sessions({old["dovecot"]})
        check(not left, f"Dovecot processes left after stop-imap: {left}")

    with Phase("SMTP accepted while IMAP is down (deferred)"):
        subj5 = f"selftest during outage {token}"
        st.send(rcpt, subj5)

    with Phase("start-imap, login again"):
        mailstack("start-imap", st.dir)
        st.note_pids()
        m = st.imap_login("game")
        t0 = time.monotonic()

    with Phase("deferred message delivered after start-imap"):
        st.wait_for(m, subj5, timeout=15)
        m.logout()

    old = read_pids(st.dir)
    with Phase("stop-smtp"):
        mailstack("stop-smtp", st.dir)
        check(not port_open(st.host, st.smtp), "SMTP port still open after stop-smtp")
        left = live_in_sessions({old["postfix"]})
        check(not left, f"Postfix processes left after stop-smtp: {left}")

    with Phase("start-smtp, send again"):
        mailstack("start-smtp", st.dir)
        st.note_pids()
        subj6 = f"selftest after smtp restart {token}"
        st.send(rcpt, subj6)
        m = st.imap_login("game")
        st.wait_for(m, subj6)
        m.logout()
    p = read_pids(st.dir)
    check(set(p) == {"postfix", "dovecot"}, f"DIR/pids after restarts: {p}")


def stop_and_verify(st):
    with Phase("stop"):
        mailstack("stop", st.dir)
    with Phase("verify nothing left running"):
        st.note_pids()
        left = live_in_sessions(st.sessions_seen)
        check(not left, f"processes left after stop: {left}")
        ports = [p for p in (st.smtp, st.submission, st.smtps, st.imap, st.imaps) if p]
        still = [p for p in ports if port_open(st.host, p)]
        check(not still, f"ports still open after stop: {still}")
        check(read_pids(st.dir) == {}, "DIR/pids not empty after stop")


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    do_stop = "--stop" in argv
    own_dir = None
    if args:
        d = os.path.abspath(args[0])
    else:
        own_dir = d = tempfile.mkdtemp(prefix="mailstack-selftest-")
        do_stop = True
        with Phase("start (fresh temp dir)"):
            mailstack("start", d)
    st = Stack(d)
    ok = False
    try:
        run_checks(st)
        if do_stop:
            stop_and_verify(st)
        ok = True
    finally:
        if not ok:
            for name in ("postfix.log", "dovecot.log"):
                path = os.path.join(d, "log", name)
                if os.path.exists(path):
                    with open(path, errors="replace") as f:
                        tail = f.readlines()[-30:]
                    sys.stderr.write(f"==== {path} (tail) ====\n" + "".join(tail))
            if own_dir:
                subprocess.run([MAILSTACK, "stop", d], capture_output=True, timeout=60)
        if own_dir and ok:
            shutil.rmtree(own_dir, ignore_errors=True)
    print("\nTimings:")
    for name, dt in TIMINGS:
        print(f"  {name:<60} {dt:7.3f} s")
    print("mailstack selftest: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
