#!/usr/bin/env bash
# mailstack.sh - a real Postfix (SMTP) + Dovecot (IMAP, LMTP) on loopback, for
# adjutant's integration tests.  Everything a running stack needs (configs,
# queue, sockets, logs, Maildirs, certificates, PIDs) lives in one directory
# DIR, so several stacks (on different ports) and the system's own mail set-up
# never interfere, and `rm -rf DIR` after `stop` removes every trace.
#
#   mailstack.sh install                 apt-get the three packages (root)
#   mailstack.sh start DIR               build DIR, start both daemons, wait for ports
#   mailstack.sh stop DIR                stop what `start` started (Postfix first)
#   mailstack.sh stop-imap|start-imap DIR   only Dovecot  (simulate an IMAP outage)
#   mailstack.sh stop-smtp|start-smtp DIR   only Postfix  (simulate an SMTP outage)
#   mailstack.sh reload-smtp DIR         Postfix rereads DIR/etc/postfix/recipient_access
#                                        (lines "addr@domain 450 4.2.1 text": a slow mailbox)
#   mailstack.sh status DIR              print what is running, exit 0 iff both are
#
# After `start`, `. DIR/env` gives MAILSTACK_* variables (ports, CA, domain,
# password).  Ports can be overridden by exporting MAILSTACK_SMTP_PORT,
# MAILSTACK_SUBMISSION_PORT, MAILSTACK_SMTPS_PORT, MAILSTACK_IMAP_PORT,
# MAILSTACK_IMAPS_PORT before `start`; start-imap/start-smtp reuse the
# configuration written by `start`, so the ports stay the same.
#
# Must run as root: Postfix's master and Dovecot's master bind ports and
# switch to their own users (postfix, dovecot, dovenull, mail).
#
# "Pitfall N" below refers to the notes of the verified set-up
# (/work/shared/mailstack-notes.md, outside this repo); each comment also
# states the reason itself.
set -euo pipefail

DOMAIN=adjutant.test
PASSWORD=secret
USERS=(game alice bob carol gm mallory)
HOST=127.0.0.1                # only IPv4 loopback is bound (pitfall 12)
WAIT_START=15                 # seconds to wait for listeners
WAIT_STOP=10                  # seconds to wait for a master to exit

log() { printf 'mailstack: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

# ---------------------------------------------------------------- install ---

cmd_install() {
    [ "$(id -u)" = 0 ] || die "install must run as root"
    local pkgs=(postfix dovecot-imapd dovecot-lmtpd) missing=() p
    for p in "${pkgs[@]}"; do
        # dpkg-query rather than `which`: dovecot-lmtpd ships no binary on PATH.
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
            missing+=("$p")
        fi
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        log "already installed: ${pkgs[*]}"
    else
        # Without this answer postfix's postinst asks (or writes a system
        # main.cf); "No configuration" leaves /etc/postfix without main.cf and
        # does not start a system-wide Postfix.
        echo 'postfix postfix/main_mailer_type select No configuration' | debconf-set-selections

        # The packages' maintainer scripts would start system-wide daemons
        # (Dovecot on 143/993).  Docker images usually ship a policy-rc.d that
        # forbids that; if this machine has none, install a temporary one and
        # remove it afterwards.
        local policy=/usr/sbin/policy-rc.d tmp_policy=
        if [ ! -e "$policy" ]; then
            printf '#!/bin/sh\n# temporary, from adjutant scripts/mailstack.sh install\nexit 101\n' >"$policy"
            chmod 755 "$policy"
            tmp_policy=$policy
            trap 'rm -f "$tmp_policy"' EXIT
        fi

        # Name only these packages, with --no-install-recommends: naming more
        # (openssl in particular) drags in upgrades of the base system.
        local apt=(apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}")
        log "installing: ${missing[*]}"
        if ! DEBIAN_FRONTEND=noninteractive "${apt[@]}"; then
            # Stale or absent package lists: refresh once, then retry.
            log "install failed; running apt-get update and retrying"
            DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -q
            DEBIAN_FRONTEND=noninteractive "${apt[@]}"
        fi
    fi
    # Certificates are made with the openssl binary already on the machine;
    # it is deliberately not installed here (see above).
    if ! command -v openssl >/dev/null; then
        log "warning: no openssl binary on PATH; 'start' needs it for certificates (not installed on purpose)"
    fi
}

# ------------------------------------------------------------ bookkeeping ---

# Layout of DIR (all paths absolute once set_paths ran).
set_paths() {
    [ -n "${1:-}" ] || usage
    if [ "${2:-}" = create ]; then mkdir -p "$1"; fi
    if [ ! -d "$1" ]; then
        # A teardown that runs after DIR was removed has nothing to stop.
        if [ "${2:-}" = stopping ]; then log "no such directory: $1 (nothing to stop)"; exit 0; fi
        die "no such directory: $1"
    fi
    D=$(cd "$1" && pwd -P)
    PF_CONF=$D/etc/postfix          # postfix -c
    PF_QUEUE=$D/spool/postfix       # queue_directory (sockets in private/)
    PF_DATA=$D/lib/postfix          # data_directory, must be owned by postfix
    DC_CONF=$D/etc/dovecot/dovecot.conf
    DC_PASSWD=$D/etc/dovecot/passwd
    DC_BASE=$D/run/dovecot          # base_dir (master.pid, internal sockets)
    DC_STATE=$D/lib/dovecot         # state_dir
    LOGDIR=$D/log
    TLS=$D/tls
    MAILROOT=$D/mail
    PIDDIR=$D/run/pids              # one file per daemon: "PID STARTTIME"
}

# Start time (clock ticks since boot, field 22 of /proc/PID/stat) identifies a
# process beyond its PID: a recorded PID that was since reused by an unrelated
# process is never signalled.
proc_starttime() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }               # drop "pid (comm) " - comm may contain spaces
    # shellcheck disable=SC2086
    set -- $stat                    # now $1 is field 3 (state)
    printf '%s\n' "${20}"
}

proc_state() { # one-letter state, empty if gone
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    stat=${stat##*) }
    printf '%s\n' "${stat%% *}"
}

# Is the recorded daemon NAME (postfix|dovecot) alive and still the process we
# started?  Zombies count as stopped (pitfall 8: PID 1 reaps slowly here).
# Prints the PID when alive.
recorded_alive() {
    local f=$PIDDIR/$1 pid start now st
    [ -s "$f" ] || return 1
    read -r pid start <"$f" || return 1
    now=$(proc_starttime "$pid") || return 1
    [ "$now" = "$start" ] || return 1
    st=$(proc_state "$pid")
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] || return 1
    printf '%s\n' "$pid"
}

record_pid() { # NAME PID
    local start
    start=$(proc_starttime "$2") || die "$1 (pid $2) vanished right after start"
    mkdir -p "$PIDDIR"
    printf '%s %s\n' "$2" "$start" >"$PIDDIR/$1"
    write_pids
}

# DIR/pids: "NAME PID" for each daemon master this script started and that
# is still running.  Both masters call setsid(), so their PID is also the
# session id of all their children (`ps -o sid`), which is how a test can
# check that nothing was left behind.
write_pids() {
    local n pid tmp=$D/pids.tmp
    : >"$tmp"
    for n in postfix dovecot; do
        if pid=$(recorded_alive "$n"); then
            printf '%s %s\n' "$n" "$pid" >>"$tmp"
        fi
    done
    mv -f "$tmp" "$D/pids"
}

# PIDs of live (non-zombie) processes in session SID.
session_members() {
    ps -e -o pid=,sid=,stat= | awk -v s="$1" '$2 == s && $3 !~ /^Z/ { print $1 }'
}

# Process group of PID (field 5 of /proc/PID/stat), empty if gone.
proc_pgid() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    stat=${stat##*) }
    # shellcheck disable=SC2086
    set -- $stat
    printf '%s\n' "$3"
}

master_gone() { # PID
    local st
    st=$(proc_state "$1")
    [ -z "$st" ] || [ "$st" = Z ] || [ "$st" = X ]
}

# Poll (every 20 ms) until CONDITION... succeeds; 1 on timeout.
wait_until() { # SECONDS CONDITION...
    local deadline
    deadline=$(( $(date +%s%N) / 1000000 + $1 * 1000 )); shift
    until "$@"; do
        [ "$(( $(date +%s%N) / 1000000 ))" -lt "$deadline" ] || return 1
        sleep 0.02
    done
}

session_empty() { [ -z "$(session_members "$1")" ]; }

port_open() { # PORT
    # bash's /dev/tcp: no nc/ss dependency.  The subshell closes the socket.
    (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null
}

wait_ports() { # SECONDS PORT...
    local deadline p pending
    deadline=$(( $(date +%s) + $1 )); shift
    while :; do
        pending=()
        for p in "$@"; do port_open "$p" || pending+=("$p"); done
        [ "${#pending[@]}" -eq 0 ] && return 0
        if [ "$(date +%s)" -ge "$deadline" ]; then
            log "ports not accepting connections after ${WAIT_START}s: ${pending[*]}"
            return 1
        fi
        sleep 0.05
    done
}

show_logs() {
    local f
    for f in "$LOGDIR"/*.log; do
        [ -s "$f" ] || continue
        printf '==== %s (last 40 lines) ====\n' "$f" >&2
        tail -n 40 "$f" >&2
    done
}

# Refuse to start when another process already listens on one of our ports:
# the readiness check would otherwise succeed against the wrong server.
check_ports_free() {
    local p
    for p in "$@"; do
        if port_open "$p"; then
            die "port $HOST:$p is already in use (another mailstack? set MAILSTACK_*_PORT)"
        fi
    done
}

# ------------------------------------------------------------ certificates ---

# A small CA plus a leaf certificate for localhost/127.0.0.1.  rustls rejects a
# self-signed certificate served as the end entity (CaUsedAsEndEntity,
# pitfall 10), so the leaf has CA:FALSE + EKU serverAuth + SAN.  The
# extensions also satisfy Python's VERIFY_X509_STRICT (default from 3.13):
# critical basicConstraints on the CA, AKI on the leaf.  Kept across restarts
# of the same DIR so a test's trusted CA stays valid.
make_certs() {
    command -v openssl >/dev/null || die "openssl binary not found (it is not installed by this script on purpose)"
    if [ -s "$TLS/ca.pem" ] && [ -s "$TLS/server.key" ] && [ -s "$TLS/server-chain.pem" ] &&
       openssl x509 -in "$TLS/server.pem" -noout -checkend 86400 >/dev/null 2>&1; then
        return 0
    fi
    mkdir -p "$TLS"
    # Own config file: the system openssl.cnf adds default extensions to
    # `req -x509`, which would clash with ours.
    cat >"$TLS/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = placeholder
[ca_ext]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[leaf_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
EOF
    # ECDSA P-256: generated in milliseconds (RSA would cost ~0.1 s each) and
    # supported by rustls, OpenSSL clients, Postfix and Dovecot alike.
    local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    umask 077
    openssl req -config "$TLS/openssl.cnf" -x509 "${ec[@]}" -keyout "$TLS/ca.key" \
        -out "$TLS/ca.pem" -days 3650 -subj "/CN=adjutant mailstack test CA" \
        -extensions ca_ext -set_serial "0x$(openssl rand -hex 8)" 2>/dev/null
    openssl req -config "$TLS/openssl.cnf" -new "${ec[@]}" -keyout "$TLS/server.key" \
        -out "$TLS/server.csr" -subj "/CN=localhost" 2>/dev/null
    openssl x509 -req -in "$TLS/server.csr" -CA "$TLS/ca.pem" -CAkey "$TLS/ca.key" \
        -set_serial "0x$(openssl rand -hex 8)" -days 825 \
        -extfile "$TLS/openssl.cnf" -extensions leaf_ext -out "$TLS/server.pem" 2>/dev/null
    umask 022
    # Servers send leaf + CA; clients trust ca.pem only.
    cat "$TLS/server.pem" "$TLS/ca.pem" >"$TLS/server-chain.pem"
    chmod 644 "$TLS/ca.pem" "$TLS/server.pem" "$TLS/server-chain.pem"
    chmod 600 "$TLS/ca.key" "$TLS/server.key"   # read by the masters as root
    rm -f "$TLS/server.csr"
}

# ----------------------------------------------------------------- configs ---

# Every directory a daemon user (postfix, dovecot, dovenull, mail) must reach
# needs o+x on the whole path (pitfall 9: mktemp -d gives 0700).
check_traversable() {
    local p=$D
    while [ "$p" != / ]; do
        local mode
        mode=$(stat -c %a "$p")
        if (( (8#$mode & 1) == 0 )); then
            if [ "$p" = "$D" ]; then
                chmod o+x "$p"
            else
                die "$p is not traversable by other users (mode $mode); the mail daemons' users cannot reach $D. Use a DIR under /tmp or chmod o+x $p"
            fi
        fi
        p=$(dirname "$p")
    done
}

write_postfix_config() {
    mkdir -p "$PF_CONF" "$PF_QUEUE" "$PF_DATA"
    chmod 755 "$D/etc" "$PF_CONF" "$D/spool" "$D/lib"
    # Pitfall 2: the master takes a lock in data_directory and dies unless
    # the directory belongs to the mail owner.
    chown postfix:postfix "$PF_DATA"; chmod 700 "$PF_DATA"
    # Postfix creates its queue subdirectories at `start` (post-install
    # create-missing), but Dovecot (started first) puts its LMTP and auth
    # sockets into private/, so create that now with Postfix's own ownership.
    mkdir -p "$PF_QUEUE/private"
    chown postfix:root "$PF_QUEUE/private"; chmod 700 "$PF_QUEUE/private"

    # Any local part is a valid mailbox: Postfix's virtual(8) cannot map an
    # address to its own Maildir ($1 substitution refused, pitfall 1), so it
    # only validates here and hands delivery to Dovecot over LMTP.
    printf '/^/ OK\n' >"$PF_CONF/virtual_mailbox.regexp"
    # Recipients the tests make answer 4xx for a while (one slow mailbox
    # while the others take mail): empty at start; `reload-smtp` rereads it.
    : >"$PF_CONF/recipient_access"

    local meta
    # -d: the system main.cf does not exist ("No configuration").
    meta=$(postconf -d -h meta_directory 2>/dev/null || echo /etc/postfix)
    cat >"$PF_CONF/main.cf" <<EOF
# Generated by scripts/mailstack.sh - overwritten on every start.
compatibility_level = 3.6
# The package's postfix-files/dynamicmaps.cf live in the system meta dir; the
# default would look for them next to this main.cf.
meta_directory = $meta
queue_directory = $PF_QUEUE
data_directory = $PF_DATA
mail_owner = postfix
setgid_group = postdrop

# No syslog daemon here: Postfix logs through its own postlogd into a file.
# maillog_file_prefixes defaults to /var and /dev/stdout, so allow DIR/log.
maillog_file = $LOGDIR/postfix.log
maillog_file_prefixes = $LOGDIR

myhostname = mx.$DOMAIN
mydomain = $DOMAIN
myorigin = \$myhostname
inet_interfaces = $HOST
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
mydestination =
local_recipient_maps =
alias_maps =
alias_database =
biff = no
append_dot_mydomain = no
readme_directory = no
smtpd_banner = \$myhostname ESMTP adjutant-mailstack

# The test domain: every local part is accepted and delivered to Dovecot.
virtual_mailbox_domains = $DOMAIN
virtual_mailbox_maps = regexp:$PF_CONF/virtual_mailbox.regexp
virtual_transport = lmtp:unix:private/dovecot-lmtp
recipient_delimiter = +

# Nothing ever leaves the machine: any other destination bounces at once.
default_transport = error:mailstack: outside mail disabled
relay_transport = error:mailstack: outside mail disabled
local_transport = error:mailstack: local delivery disabled

# From loopback anything may be sent without auth (port $SMTP_PORT); the
# submission ports override these in master.cf.
smtpd_relay_restrictions = permit_mynetworks, permit_sasl_authenticated, reject_unauth_destination
smtpd_recipient_restrictions = check_recipient_access texthash:$PF_CONF/recipient_access
smtpd_sasl_type = dovecot
smtpd_sasl_path = private/auth
smtpd_sasl_auth_enable = no

# TLS (STARTTLS offered everywhere, required on submission).
smtpd_tls_chain_files = $TLS/server.key, $TLS/server-chain.pem
smtpd_tls_security_level = may
smtpd_tls_loglevel = 1
smtpd_tls_received_header = yes
smtp_tls_security_level = none

# Tests are fast and simulate outages: no artificial delays, and mail
# deferred while Dovecot is down is retried within about a second.
smtpd_peername_lookup = no
smtpd_error_sleep_time = 0
smtpd_soft_error_limit = 100
smtpd_hard_error_limit = 1000
in_flow_delay = 0
queue_run_delay = 1s
minimal_backoff_time = 1s
maximal_backoff_time = 2s
transport_retry_time = 1s
delay_warning_time = 0
lmtp_connect_timeout = 5s
EOF

    local sub_opts=(
        -o syslog_name=postfix/submission
        -o smtpd_tls_security_level=encrypt
        -o smtpd_sasl_auth_enable=yes
        -o smtpd_tls_auth_only=yes
        -o smtpd_client_restrictions=permit_sasl_authenticated,reject
        -o smtpd_relay_restrictions=permit_sasl_authenticated,reject
    )
    local smtps_opts=(
        -o syslog_name=postfix/smtps
        -o smtpd_tls_wrappermode=yes
        -o smtpd_sasl_auth_enable=yes
        -o smtpd_client_restrictions=permit_sasl_authenticated,reject
        -o smtpd_relay_restrictions=permit_sasl_authenticated,reject
    )
    # chroot column "n" everywhere: the daemons must reach DIR paths.
    {
        echo "# Generated by scripts/mailstack.sh - overwritten on every start."
        echo "# service type  private unpriv  chroot  wakeup  maxproc command + args"
        echo "$HOST:$SMTP_PORT inet n - n - - smtpd"
        echo "$HOST:$SUBMISSION_PORT inet n - n - - smtpd"
        printf '  %s %s\n' "${sub_opts[@]}"
        echo "$HOST:$SMTPS_PORT inet n - n - - smtpd"
        printf '  %s %s\n' "${smtps_opts[@]}"
        cat <<'EOF'
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
tlsmgr    unix  -       -       n       1000?   1       tlsmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
proxywrite unix -       -       n       -       1       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
lmtp      unix  -       -       n       -       -       lmtp
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
EOF
    } >"$PF_CONF/master.cf"
    chmod 644 "$PF_CONF"/*

    # Pitfall 3: `postfix start` sleeps ~2 s when its config changed within
    # the last second; backdate what we just wrote.
    touch -d '-1 minute' "$PF_CONF"/main.cf "$PF_CONF"/master.cf "$PF_CONF"/virtual_mailbox.regexp "$PF_CONF"
}

write_dovecot_config() {
    local mail_uid dh=
    mail_uid=$(id -u mail)
    mkdir -p "$(dirname "$DC_CONF")" "$DC_STATE" "$MAILROOT"
    chmod 755 "$(dirname "$DC_CONF")" "$DC_STATE" "$D/run"
    # Mail is stored as the system `mail` user (static userdb below); it must
    # be able to create DIR/mail/<domain>/<user>/Maildir.
    chown mail:mail "$MAILROOT"; chmod 755 "$MAILROOT"

    # One line per test user; login name is the full address.  Readable by
    # the `dovecot` user (the auth process reads it, pitfall 9).  Dovecot
    # re-reads it by mtime+size at most once a second (pitfall 6).
    local u
    : >"$DC_PASSWD"
    for u in "${USERS[@]}"; do
        printf '%s@%s:{PLAIN}%s::::::\n' "$u" "$DOMAIN" "$PASSWORD" >>"$DC_PASSWD"
    done
    chown root:dovecot "$DC_PASSWD"; chmod 640 "$DC_PASSWD"

    # DH parameters are only used for (rare) DHE suites; the package ships some.
    [ -r /usr/share/dovecot/dh.pem ] && dh="ssl_dh = </usr/share/dovecot/dh.pem"

    cat >"$DC_CONF" <<EOF
# Generated by scripts/mailstack.sh - overwritten on every start.
base_dir = $DC_BASE
state_dir = $DC_STATE
protocols = imap lmtp
listen = $HOST
log_path = $LOGDIR/dovecot.log
info_log_path = $LOGDIR/dovecot.log
auth_verbose = yes

ssl = yes
ssl_cert = <$TLS/server-chain.pem
ssl_key = <$TLS/server.key
$dh

# Plain LOGIN on $IMAP_PORT without STARTTLS is allowed (tests may want it).
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0

# Login: passwd-file (all test users, password "$PASSWORD").  Storage: any
# address gets its own Maildir, case folded, as uid mail - which is below the
# default first_valid_uid of 500, hence lowered.
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%Lu $DC_PASSWD
}
userdb {
  driver = static
  args = uid=mail gid=mail home=$MAILROOT/%Ld/%Ln allow_all_users=yes
}
first_valid_uid = $mail_uid
mail_location = maildir:~/Maildir
namespace inbox {
  inbox = yes
}
# game+tok@domain is delivered to game's INBOX.
recipient_delimiter = +
lmtp_save_to_detail_mailbox = no
postmaster_address = postmaster@$DOMAIN

service imap-login {
  inet_listener imap {
    port = $IMAP_PORT
  }
  inet_listener imaps {
    port = $IMAPS_PORT
    ssl = yes
  }
}
# The sockets Postfix uses live in Postfix's queue (it runs unchrooted and
# addresses them as private/...).
service lmtp {
  unix_listener $PF_QUEUE/private/dovecot-lmtp {
    mode = 0600
    user = postfix
    group = postfix
  }
}
service auth {
  unix_listener $PF_QUEUE/private/auth {
    mode = 0660
    user = postfix
    group = postfix
  }
}
# Pitfall 5: after one wrong password every later login from 127.0.0.1 (good
# ones too, SMTP AUTH included) is delayed up to 15 s.  auth_failure_delay=0
# does not stop that in 2.3; an unusable penalty listener does.
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
EOF
    chmod 644 "$DC_CONF"
}

write_env() {
    {
        echo "# Generated by scripts/mailstack.sh start - source it: . DIR/env"
        printf 'export MAILSTACK_DIR=%q\n' "$D"
        printf 'export MAILSTACK_HOST=%q\n' "$HOST"
        printf 'export MAILSTACK_SMTP_PORT=%q\n' "$SMTP_PORT"
        printf 'export MAILSTACK_SUBMISSION_PORT=%q\n' "$SUBMISSION_PORT"
        printf 'export MAILSTACK_SMTPS_PORT=%q\n' "$SMTPS_PORT"
        printf 'export MAILSTACK_IMAP_PORT=%q\n' "$IMAP_PORT"
        printf 'export MAILSTACK_IMAPS_PORT=%q\n' "$IMAPS_PORT"
        printf 'export MAILSTACK_CA=%q\n' "$TLS/ca.pem"
        printf 'export MAILSTACK_DOMAIN=%q\n' "$DOMAIN"
        printf 'export MAILSTACK_PASSWORD=%q\n' "$PASSWORD"
        printf 'export MAILSTACK_USERS=%q\n' "${USERS[*]}"
        printf 'export MAILSTACK_PASSWD_FILE=%q\n' "$DC_PASSWD"
        printf 'export MAILSTACK_MAIL_ROOT=%q\n' "$MAILROOT"
    } >"$D/env.tmp"
    mv -f "$D/env.tmp" "$D/env"
}

# Ports: from the environment at `start`; from DIR/env afterwards, so that
# start-imap/start-smtp bring a daemon back on the same ports.
load_ports() {
    if [ "${1:-}" = from-env-file ]; then
        [ -s "$D/env" ] || die "$D/env not found: run '$0 start $D' first"
        # shellcheck disable=SC1091
        . "$D/env"
    fi
    SMTP_PORT=${MAILSTACK_SMTP_PORT:-2525}
    SUBMISSION_PORT=${MAILSTACK_SUBMISSION_PORT:-2587}
    SMTPS_PORT=${MAILSTACK_SMTPS_PORT:-2465}
    IMAP_PORT=${MAILSTACK_IMAP_PORT:-1143}
    IMAPS_PORT=${MAILSTACK_IMAPS_PORT:-1993}
    # Validate: Postfix and bash's /dev/tcp silently take 99999 as 34463.
    local p
    for p in "$SMTP_PORT" "$SUBMISSION_PORT" "$SMTPS_PORT" "$IMAP_PORT" "$IMAPS_PORT"; do
        [[ "$p" =~ ^[0-9]+$ ]] && [ "$p" -ge 1 ] && [ "$p" -le 65535 ] || die "invalid port: '$p'"
    done
}

# ----------------------------------------------------------------- daemons ---

start_dovecot() {
    local pid
    if pid=$(recorded_alive dovecot); then die "Dovecot already running (pid $pid)"; fi
    check_ports_free "$IMAP_PORT" "$IMAPS_PORT"
    rm -f "$DC_BASE/master.pid"
    # Pitfall 4: the daemonised master inherits our stdio; a caller that
    # captures our output through a pipe would wait for EOF forever.
    dovecot -c "$DC_CONF" </dev/null >>"$LOGDIR/dovecot.stdio.log" 2>&1 || {
        show_logs; die "dovecot failed to start"; }
    # The master forks into the background (and setsid()s); its PID file
    # appears once it is initialised.
    local i
    for i in $(seq 1 200); do
        [ -s "$DC_BASE/master.pid" ] && break
        sleep 0.025
    done
    [ -s "$DC_BASE/master.pid" ] || { show_logs; die "dovecot wrote no $DC_BASE/master.pid"; }
    record_pid dovecot "$(tr -dc 0-9 <"$DC_BASE/master.pid")"
}

start_postfix() {
    local pid
    if pid=$(recorded_alive postfix); then die "Postfix already running (pid $pid)"; fi
    check_ports_free "$SMTP_PORT" "$SUBMISSION_PORT" "$SMTPS_PORT"
    # `postfix start` runs `master -w`, which returns once the master is up;
    # its own stdio still goes to a file (pitfall 4 applies here as well).
    postfix -c "$PF_CONF" start </dev/null >>"$LOGDIR/postfix.stdio.log" 2>&1 || {
        show_logs; die "postfix failed to start"; }
    local pidfile=$PF_QUEUE/pid/master.pid
    [ -s "$pidfile" ] || { show_logs; die "postfix wrote no $pidfile"; }
    record_pid postfix "$(tr -dc 0-9 <"$pidfile")"
}

# Stop the recorded master NAME and wait (bounded) for it and every process
# of its session - and nothing else: the session id is the recorded PID,
# whose start time was checked, so no unrelated process is ever signalled.
stop_recorded() { # NAME
    local name=$1 pid p
    if ! pid=$(recorded_alive "$name"); then
        rm -f "$PIDDIR/$name"; write_pids
        log "$name not running"
        return 0
    fi
    if [ "$name" = postfix ]; then
        # The proper way: `postfix stop` signals the master named in
        # queue/pid/master.pid (the one we recorded) and waits; its children
        # exit as soon as the master is gone.  Takes well under 0.1 s.
        postfix -c "$PF_CONF" stop </dev/null >>"$LOGDIR/postfix.stdio.log" 2>&1 ||
            kill -TERM "$pid" 2>/dev/null || true
    elif [ "$(proc_pgid "$pid")" = "$pid" ]; then
        # Dovecot: SIGTERM to the master alone makes it sleep ~1-2.5 s, and
        # its auth process then stays until every client of the auth socket
        # has gone - Postfix's idle smtpd processes keep theirs for up to
        # 100 s, so stop-imap (Postfix still up) would hang (pitfall 7).
        # Signalling the master's whole process group (its PID; it called
        # setsid) ends everything in ~10 ms.  Cost: "Killed with signal 15"
        # warnings in dovecot.log, harmless for a test stack.
        kill -TERM -- "-$pid" 2>/dev/null || true
    else
        kill -TERM "$pid" 2>/dev/null || true
    fi
    # Master first, then whatever of its session is left: TERM, then KILL.
    if ! wait_until "$WAIT_STOP" master_gone "$pid"; then
        log "$name (pid $pid) did not stop within ${WAIT_STOP}s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    if ! wait_until 2 session_empty "$pid"; then
        for p in $(session_members "$pid"); do kill -TERM "$p" 2>/dev/null || true; done
        if ! wait_until 2 session_empty "$pid"; then
            log "$name: processes of session $pid ignored SIGTERM; sending SIGKILL"
            for p in $(session_members "$pid"); do kill -KILL "$p" 2>/dev/null || true; done
            wait_until 2 session_empty "$pid" || {
                rm -f "$PIDDIR/$name"; write_pids
                die "$name: processes of session $pid still alive: $(session_members "$pid" | tr '\n' ' ')"; }
        fi
    fi
    rm -f "$PIDDIR/$name"
    write_pids
}

ready_or_fail() { # PORT...
    if ! wait_ports "$WAIT_START" "$@"; then
        show_logs
        return 1
    fi
}

# ---------------------------------------------------------------- commands ---

cmd_start() {
    [ "$(id -u)" = 0 ] || die "start must run as root"
    command -v postfix >/dev/null && command -v dovecot >/dev/null ||
        die "postfix/dovecot not installed: run '$0 install'"
    set_paths "${1:-}" create
    load_ports
    if recorded_alive postfix >/dev/null || recorded_alive dovecot >/dev/null; then
        die "a stack is already running in $D: run '$0 stop $D' first"
    fi
    # Before touching anything: a busy port means another stack (or
    # service) that the readiness check below would mistake for ours.
    check_ports_free "$SMTP_PORT" "$SUBMISSION_PORT" "$SMTPS_PORT" "$IMAP_PORT" "$IMAPS_PORT"
    chmod 755 "$D"
    check_traversable
    mkdir -p "$LOGDIR" "$PIDDIR"
    chmod 755 "$LOGDIR"
    make_certs
    write_postfix_config
    write_dovecot_config
    write_env
    : >"$D/pids"

    # Dovecot first: Postfix needs its auth and LMTP sockets.  If anything
    # fails (die exits from anywhere), stop whatever did start so no daemon
    # is left behind; hence an EXIT trap, which also covers `die`.
    trap 'rc=$?; if [ "$rc" != 0 ]; then stop_recorded postfix >/dev/null 2>&1 || true; stop_recorded dovecot >/dev/null 2>&1 || true; fi' EXIT
    start_dovecot
    start_postfix
    wait_for_sockets
    ready_or_fail "$SMTP_PORT" "$SUBMISSION_PORT" "$SMTPS_PORT" "$IMAP_PORT" "$IMAPS_PORT" ||
        die "mail stack did not become ready"
    trap - EXIT
    log "running in $D (SMTP $SMTP_PORT, submission $SUBMISSION_PORT, smtps $SMTPS_PORT, IMAP $IMAP_PORT, IMAPS $IMAPS_PORT); . $D/env"
}

# LMTP/auth sockets are created by the Dovecot master at start; a port being
# open does not prove they exist, and mail sent before would be deferred.
wait_for_sockets() {
    local i
    for i in $(seq 1 200); do
        [ -S "$PF_QUEUE/private/dovecot-lmtp" ] && [ -S "$PF_QUEUE/private/auth" ] && return 0
        sleep 0.025
    done
    show_logs
    die "Dovecot's sockets did not appear in $PF_QUEUE/private"
}

cmd_stop() {
    set_paths "${1:-}" stopping
    # Postfix first: while it holds the SASL socket, Dovecot's helpers
    # outlive their master (pitfall 7).
    stop_recorded postfix
    stop_recorded dovecot
    log "stopped $D"
}

cmd_start_imap() {
    set_paths "${1:-}"; load_ports from-env-file
    trap 'rc=$?; if [ "$rc" != 0 ]; then stop_recorded dovecot >/dev/null 2>&1 || true; fi' EXIT
    start_dovecot
    wait_for_sockets
    ready_or_fail "$IMAP_PORT" "$IMAPS_PORT" || die "Dovecot did not become ready"
    trap - EXIT
}

cmd_start_smtp() {
    set_paths "${1:-}"; load_ports from-env-file
    # The same backdating as at start: the files are unchanged, but the
    # guard is cheap (pitfall 3).
    touch -d '-1 minute' "$PF_CONF"/main.cf "$PF_CONF"/master.cf
    trap 'rc=$?; if [ "$rc" != 0 ]; then stop_recorded postfix >/dev/null 2>&1 || true; fi' EXIT
    start_postfix
    ready_or_fail "$SMTP_PORT" "$SUBMISSION_PORT" "$SMTPS_PORT" || die "Postfix did not become ready"
    trap - EXIT
}

cmd_status() {
    set_paths "${1:-}"
    local rc=0 n pid
    for n in postfix dovecot; do
        if pid=$(recorded_alive "$n"); then echo "$n running (pid $pid)"; else echo "$n stopped"; rc=1; fi
    done
    return "$rc"
}

case "${1:-}" in
    install)    cmd_install ;;
    start)      cmd_start "${2:-}" ;;
    stop)       cmd_stop "${2:-}" ;;
    start-imap) cmd_start_imap "${2:-}" ;;
    stop-imap)  set_paths "${2:-}" stopping; stop_recorded dovecot ;;
    start-smtp) cmd_start_smtp "${2:-}" ;;
    stop-smtp)  set_paths "${2:-}" stopping; stop_recorded postfix ;;
    reload-smtp) set_paths "${2:-}"; postfix -c "$PF_CONF" reload >/dev/null 2>&1 ;;
    status)     cmd_status "${2:-}" ;;
    *)          usage ;;
esac
