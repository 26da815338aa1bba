#!/usr/bin/env bash
# Regenerate the real-client part of the reply corpus (tests/corpus/replies).
#
# Real mail clients from Debian -- mutt, neomutt, s-nail and alpine -- each
# REPLY to tests/corpus/prompt-austria.eml (the prompt adjutant really sent to
# alice@example.org, the austria player of game "corpus"), and the exact bytes
# each client hands to its "sendmail" are written, untouched, to
#   tests/corpus/replies/<client>-<layout>.eml
# The expectations beside them (<client>-<layout>.toml) are written by hand
# and checked in; this script only rewrites the .eml files it owns (it never
# touches the faithful copies of other clients, which
# tests/corpus/faithful-copies.py writes).
#
# How a client is driven:
#   * its sendmail is $W/capture.sh, which copies stdin to a file;
#   * its editor (mutt, neomutt; s-nail's ~e) is $W/edit.pl, which plays the
#     player: it writes Alice's text into the draft in the chosen layout
#     (bottom: under the quote; top: above it; interleaved: between quoted
#     parts). With format=flowed it wraps the long PRESS line at 72 columns
#     with a trailing space on each soft-broken line, as vim does with
#     'tw=72 fo+=w' (mutt and neomutt never wrap text themselves);
#   * mutt, neomutt and alpine run under tmux (a private socket) and are
#     typed at with send-keys; alpine's own composer (pico) receives the text
#     keystroke by keystroke and wraps the long line itself;
#   * s-nail runs in its batch mode (-#), the compose text on stdin.
# Every client runs with HOME in a scratch folder, no system or user
# configuration (mutt/neomutt -n -F, s-nail -:/, alpine -p),
# LANG=C.UTF-8, TZ=Europe/Vienna and a fixed clock (faketime, Sunday
# 1 March 2026 shortly after the prompt's 13:00 UTC), so Date headers are
# plausible; Message-IDs and MIME boundaries still change from run to run.
#
# Usage: scripts/client-corpus.sh            (as root installs what is missing:
#        mutt neomutt s-nail alpine tmux faketime perl from Debian)
#        ONLY="mutt alpine" scripts/client-corpus.sh   (just those clients)
# Idempotent: every output file is rewritten from scratch on each run.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CORPUS=$ROOT/tests/corpus
OUT=$CORPUS/replies
PROMPT=$CORPUS/prompt-austria.eml

pkgs=(mutt neomutt s-nail alpine tmux faketime perl)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || { echo "missing Debian packages: ${missing[*]} (run as root or install them)" >&2; exit 1; }
    apt-get -o DPkg::Lock::Timeout=600 install -y "${missing[@]}" >/dev/null 2>&1 ||
        { apt-get -o DPkg::Lock::Timeout=600 update >/dev/null && apt-get -o DPkg::Lock::Timeout=600 install -y "${missing[@]}" >/dev/null; }
fi
[ -f "$PROMPT" ] || { echo "no $PROMPT" >&2; exit 1; }
mkdir -p "$OUT"

W=$(mktemp -d /tmp/client-corpus.XXXXXX)
SOCK=client-corpus-$$
tm() { tmux -L "$SOCK" "$@"; }
cleanup() {
    tm kill-server >/dev/null 2>&1 || true
    rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$W/home/mail" "$W/cap"

# ---------------------------------------------------------------- helpers --
# The prompt as a local delivery agent leaves it in an mbox: LF line ends.
{
    printf 'From game@adjutant.local Sun Mar  1 13:00:00 2026\n'
    tr -d '\r' <"$PROMPT" | sed 's/^From />From /'
    printf '\n'
} >"$W/prompt.mbox"

# Pretend sendmail: keep exactly what the client hands over.
cat >"$W/capture.sh" <<'EOF'
#!/bin/sh
cat >"$CAPTURE.tmp" && mv "$CAPTURE.tmp" "$CAPTURE"
EOF
chmod +x "$W/capture.sh"

# The player at the keyboard: edit.pl LAYOUT FLOWED(0|1) SALT(0|1) [VOICE] FILE
#   LAYOUT bottom | top | interleaved | trimmed (bottom, the quote cut after
#   the order syntax); VOICE en (default) or at (Austrian, with umlauts).
cat >"$W/edit.pl" <<'EOF'
#!/usr/bin/perl
use strict;
use warnings;
use utf8;
binmode STDOUT, ':utf8';
my $file = pop @ARGV;
my ($layout, $flowed, $salt, $voice) = @ARGV;
$voice //= 'en';
open my $fh, '<:utf8', $file or die "$file: $!";
my @d = <$fh>;
close $fh;
my $press = 'PRESS ALL Greetings from Vienna: the Emperor sends his regards and hopes this campaign will be short and honourable for everybody';
my $hi = 'Hi,';
if ($voice eq 'at') {
    $press = 'PRESS ALL Grüße aus Wien: the Emperor sends his regards and hopes this campaign will be short and honourable for everybody';
    $hi = 'Grüß Gott,';
}
sub wrapped {    # vim 'tw=72 fo+=w': soft breaks keep a trailing space
    my ($t) = @_;
    return ("$t\n") unless $flowed;
    my (@out, $cur);
    for my $w (split / /, $t) {
        if (defined $cur && length($cur) + 1 + length($w) > 72) { push @out, "$cur \n"; $cur = $w; }
        else { $cur = defined $cur ? "$cur $w" : $w; }
    }
    push @out, "$cur\n";
    return @out;
}
my @place = ("PLACE Laudon AT Rovereto\n", "PLACE Vukassovich AT Riva\n");
my @more = (wrapped($press), $salt ? ("SALT kaiserschmarrn-1796\n") : ());
my @mine = ("$hi\n", "\n", "here are my orders:\n", "\n", @place, @more, "\n", "Thanks!\n", "Alice\n");
# a signature, when the client put one in, stays last
my $sig = scalar @d;
for my $i (0 .. $#d) { if ($d[$i] eq "-- \n") { $sig = $i; last; } }
my @body = @d[0 .. $sig - 1];
my @tail = @d[$sig .. $#d];
if ($layout eq 'trimmed') {
    my $end;
    for my $i (0 .. $#body) { if ($body[$i] =~ /and RESIGN\.$/) { $end = $i; last; } }
    die "trimmed: quote not found\n" unless defined $end;
    @body = @body[0 .. $end];
    $layout = 'bottom';
}
if ($layout eq 'bottom') {
    pop @body while @body && $body[-1] =~ /^\s*$/;
    @body = (@body, "\n", @mine, @tail ? ("\n") : ());
} elsif ($layout eq 'top') {
    @body = (@mine, "\n", @body);
} elsif ($layout eq 'interleaved') {
    my @n;
    my $state = 0;
    for my $l (@body) {
        push @n, $l;
        if ($state == 0 && $l =~ /PLACE <block> AT <city>/) { push @n, "\n", @place, "\n"; $state = 1; }
        elsif ($state == 1 && $l =~ /and RESIGN\.$/) { push @n, "\n", @more, "\n"; $state = 2; }
    }
    die "interleaved: quote not found\n" unless $state == 2;
    pop @n while @n && $n[-1] =~ /^\s*$/;
    @body = ("$hi\n", "\n", @n, "\n", "Thanks!\n", "Alice\n", @tail ? ("\n") : ());
} else {
    die "layout $layout?\n";
}
open $fh, '>:utf8', $file or die "$file: $!";
print $fh @body, @tail;
close $fh;
EOF
chmod +x "$W/edit.pl"

printf 'Alice Example\nVienna, Austria\n' >"$W/signature"

# wait_screen SESSION PATTERN [SECONDS]: until the pane shows PATTERN.
wait_screen() {
    local s=$1 pat=$2 t=${3:-30} i
    for ((i = 0; i < t * 10; i++)); do
        tm capture-pane -p -t "$s" 2>/dev/null | grep -qF -- "$pat" && return 0
        sleep 0.1
    done
    echo "timeout waiting for '$pat' in $s; screen:" >&2
    tm capture-pane -p -t "$s" >&2 || true
    return 1
}
# wait_file FILE [SECONDS]
wait_file() {
    local f=$1 t=${2:-30} i
    for ((i = 0; i < t * 10; i++)); do [ -s "$f" ] && return 0; sleep 0.1; done
    echo "timeout waiting for $f" >&2
    return 1
}
# wait_gone SESSION
wait_gone() {
    local s=$1 i
    for ((i = 0; i < 300; i++)); do tm has-session -t "$s" 2>/dev/null || return 0; sleep 0.1; done
    tm kill-session -t "$s" 2>/dev/null || true
}
# start SESSION CLOCK COMMAND...: a client under tmux, environment pinned.
start() {
    local s=$1 clock=$2
    shift 2
    local cmd
    printf -v cmd '%q ' "$@"
    tm new-session -d -s "$s" -x 120 -y 45 \
        "env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=$W/home TERM=screen LANG=C.UTF-8 TZ=Europe/Vienna CAPTURE=$W/cap/$s.eml faketime '$clock' $cmd"
}
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
keep() { # keep NAME: the captured bytes become replies/NAME.eml
    rm -f "$OUT/$1.eml"
    cat "$W/cap/$1.eml" >"$OUT/$1.eml"
    chmod 644 "$OUT/$1.eml"
    echo "wrote tests/corpus/replies/$1.eml"
}

# ------------------------------------------------------- mutt and neomutt --
# muttish CLIENT NAME CLOCK LAYOUT FLOWED SALT SIGNATURE [VOICE [RC-LINE...]]
muttish() {
    local client=$1 name=$2 clock=$3 layout=$4 flowed=$5 salt=$6 sig=$7 voice=${8:-en}
    shift 7
    shift || true
    cp "$W/prompt.mbox" "$W/$name.mbox"
    cat >"$W/$name.rc" <<EOF
set folder="$W/home/mail"
set spoolfile="$W/$name.mbox"
set mbox="$W/home/mail/mbox"
set postponed="$W/home/mail/postponed"
set record=""
set copy=no
set move=no
set postpone=no
set quit=yes
set header_cache=""
set sendmail="$W/capture.sh"
set editor="$W/edit.pl $layout $flowed $salt $voice"
set from="Alice <alice@example.org>"
set use_from=yes
set hostname="example.org"
set charset="utf-8"
set include=yes
set fast_reply=yes
set reply_to=yes
EOF
    [ "$flowed" = 1 ] && echo 'set text_flowed=yes' >>"$W/$name.rc"
    [ "$sig" = 1 ] && echo "set signature=\"$W/signature\"" >>"$W/$name.rc"
    [ $# -gt 0 ] && printf '%s\n' "$@" >>"$W/$name.rc"
    rm -f "$W/cap/$name.eml"
    start "$name" "$clock" "$client" -n -F "$W/$name.rc" -f "$W/$name.mbox"
    wait_screen "$name" "your orders are awaited"
    tm send-keys -t "$name" r
    wait_screen "$name" "y:Send"
    tm send-keys -t "$name" y
    wait_file "$W/cap/$name.eml"
    wait_screen "$name" "Mail sent"
    tm send-keys -t "$name" q
    wait_gone "$name"
    keep "$name"
}

if want mutt; then
muttish mutt mutt-bottom '2026-03-01 14:10:00' bottom 0 0 0
muttish mutt mutt-bottom-flowed '2026-03-01 14:11:00' bottom 1 1 0
muttish mutt mutt-top-flowed '2026-03-01 14:12:00' top 1 1 0
muttish mutt mutt-interleaved-flowed '2026-03-01 14:13:00' interleaved 1 1 0
# Attribution lines mutt users really configure.
muttish mutt mutt-attribution-star '2026-03-01 14:14:00' bottom 0 1 0 en \
    'set attribution="* %n <%a> [%{%Y-%m-%d %H:%M}]:"'
muttish mutt mutt-attribution-plain '2026-03-01 14:15:00' bottom 0 1 0 en 'set attribution="%n wrote:"'
muttish mutt mutt-attribution-you '2026-03-01 14:16:00' top 0 1 0 en 'set attribution="On %d, you wrote:"'
# ISO-8859-1 when the text fits it (the quote trimmed before its em dash),
# quoted-printable because 8-bit is not allowed.
muttish mutt mutt-latin1-qp '2026-03-01 14:17:00' trimmed 0 1 0 at \
    'set send_charset="us-ascii:iso-8859-1:utf-8"' 'set allow_8bit=no'
fi
if want neomutt; then
muttish neomutt neomutt-bottom '2026-03-01 14:20:00' bottom 0 0 0
muttish neomutt neomutt-bottom-flowed-signature '2026-03-01 14:21:00' bottom 1 1 1
muttish neomutt neomutt-top-flowed '2026-03-01 14:22:00' top 1 1 0
muttish neomutt neomutt-interleaved-flowed '2026-03-01 14:23:00' interleaved 1 1 0
fi

# ----------------------------------------------------------------- s-nail --
# snail NAME CLOCK STDIN-FILE OPTIONS...: batch mode, compose text on stdin.
snail() {
    local name=$1 clock=$2 input=$3
    shift 3
    cp "$W/prompt.mbox" "$W/$name.mbox"
    rm -f "$W/cap/$name.eml"
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$W/home" LANG=C.UTF-8 TZ=Europe/Vienna \
        CAPTURE="$W/cap/$name.eml" EDITOR="$W/edit.pl interleaved 0 1" \
        faketime "$clock" s-nail -# -:/ -~ \
        -S mta="$W/capture.sh" -S from='Alice <alice@example.org>' -S hostname=example.org \
        -S reply-to-honour=yes -S expandaddr=fail,-all,+addr "$@" \
        -f "$W/$name.mbox" <"$input" >/dev/null
    wait_file "$W/cap/$name.eml" 5
    keep "$name"
}
press='PRESS ALL Greetings from Vienna: the Emperor sends his regards and hopes this campaign will be short and honourable for everybody'
if want s-nail; then
# The default quoting: 'quote' set, indentprefix left at its default (a TAB).
printf '%s\n' 'Reply 1' '' 'Hi,' '' 'here are my orders:' '' 'PLACE Laudon AT Rovereto' 'PLACE Vukassovich AT Riva' \
    "$press" '' 'Thanks!' 'Alice' '~.' >"$W/snail-bottom.in"
snail s-nail-bottom '2026-03-01 14:30:00' "$W/snail-bottom.in" -S quote
# The same with the widespread indentprefix="> ".
printf '%s\n' 'Reply 1' '' 'Hi,' '' 'here are my orders:' '' 'PLACE Laudon AT Rovereto' 'PLACE Vukassovich AT Riva' \
    "$press" 'SALT kaiserschmarrn-1796' '' 'Thanks!' 'Alice' '~.' >"$W/snail-bottom-gt.in"
snail s-nail-bottom-indentprefix '2026-03-01 14:31:00' "$W/snail-bottom-gt.in" -S quote -S 'indentprefix=> '
# Top-posted: the text first, then ~Q reads the quoted message in below.
printf '%s\n' 'Reply 1' 'Hi,' '' 'here are my orders:' '' 'PLACE Laudon AT Rovereto' 'PLACE Vukassovich AT Riva' \
    "$press" 'SALT kaiserschmarrn-1796' '' 'Thanks!' 'Alice' '' '~Q' '~.' >"$W/snail-top.in"
snail s-nail-top '2026-03-01 14:32:00' "$W/snail-top.in"
# Interleaved: quote on, then ~e hands the draft to the editor (edit.pl).
printf '%s\n' 'Reply 1' '~e' '~.' >"$W/snail-inter.in"
snail s-nail-interleaved '2026-03-01 14:33:00' "$W/snail-inter.in" -S quote
fi

# ----------------------------------------------------------------- alpine --
cat >"$W/pinerc" <<EOF
personal-name=Alice
user-domain=example.org
customized-hdrs=From: Alice <alice@example.org>
sendmail-path=$W/capture.sh
default-fcc=""
postponed-folder=$W/home/mail/postponed-msgs
feature-list=include-text-in-reply,
	quit-without-confirm
last-version-used=6.26
EOF
# type SESSION TEXT: one line typed into pico, Enter after it.
type_line() {
    [ -n "$2" ] && tm send-keys -t "$1" -l "$2"
    tm send-keys -t "$1" Enter
}
# alpine_reply NAME CLOCK LAYOUT
alpine_reply() {
    local name=$1 clock=$2 layout=$3 s=$1
    cp "$W/prompt.mbox" "$W/$name.mbox"
    sed "s|^inbox-path=.*||" "$W/pinerc" >"$W/$name.pinerc"
    echo "inbox-path=$W/$name.mbox" >>"$W/$name.pinerc"
    rm -f "$W/cap/$name.eml"
    start "$s" "$clock" alpine -p "$W/$name.pinerc" -i
    wait_screen "$s" "ALPINE"
    sleep 1
    # a newer alpine than the pinerc knows greets first: leave that screen
    if tm capture-pane -p -t "$s" | grep -qF "Exit this greeting"; then tm send-keys -t "$s" E; fi
    wait_screen "$s" "MESSAGE INDEX"
    wait_screen "$s" "your orders are awaited"
    tm send-keys -t "$s" r
    wait_screen "$s" 'Use "Reply-To:" address'
    tm send-keys -t "$s" y
    wait_screen "$s" "Reply to all recipients?"
    tm send-keys -t "$s" n
    wait_screen "$s" "COMPOSE MESSAGE REPLY"
    wait_screen "$s" "adjutant wrote:"
    sleep 0.5
    case $layout in
    top)
        for l in 'Hi,' '' 'here are my orders:' '' 'PLACE Laudon AT Rovereto' 'PLACE Vukassovich AT Riva' \
            "$press" 'SALT kaiserschmarrn-1796' '' 'Thanks!' 'Alice'; do
            type_line "$s" "$l"
        done
        ;;
    bottom)
        # ^W ^V: to the end of the text, under the quote.
        tm send-keys -t "$s" C-w
        wait_screen "$s" "Search"
        tm send-keys -t "$s" C-v
        sleep 0.5
        for l in '' 'Hi,' '' 'here are my orders:' '' 'PLACE Laudon AT Rovereto' 'PLACE Vukassovich AT Riva' \
            "$press" '' 'Thanks!' 'Alice'; do
            type_line "$s" "$l"
        done
        ;;
    interleaved)
        type_line "$s" 'Hi,'
        # ^W finds the syntax line; ^E to its end, then a new line.
        tm send-keys -t "$s" C-w
        wait_screen "$s" "Search"
        tm send-keys -t "$s" -l 'PLACE <block> AT'
        tm send-keys -t "$s" Enter
        sleep 0.5
        tm send-keys -t "$s" C-e
        tm send-keys -t "$s" Enter
        for l in '' 'PLACE Laudon AT Rovereto' 'PLACE Vukassovich AT Riva'; do type_line "$s" "$l"; done
        tm send-keys -t "$s" C-w
        wait_screen "$s" "Search"
        tm send-keys -t "$s" -l 'and RESIGN.'
        tm send-keys -t "$s" Enter
        sleep 0.5
        tm send-keys -t "$s" C-e
        tm send-keys -t "$s" Enter
        for l in '' "$press" 'SALT kaiserschmarrn-1796'; do type_line "$s" "$l"; done
        tm send-keys -t "$s" C-w
        wait_screen "$s" "Search"
        tm send-keys -t "$s" C-v
        sleep 0.5
        for l in '' 'Thanks!' 'Alice'; do type_line "$s" "$l"; done
        ;;
    esac
    sleep 0.5
    tm send-keys -t "$s" C-x
    wait_screen "$s" "Send message?"
    tm send-keys -t "$s" y
    wait_file "$W/cap/$name.eml"
    wait_screen "$s" "MESSAGE INDEX"
    tm send-keys -t "$s" q
    wait_gone "$s"
    keep "$name"
}
if want alpine; then
alpine_reply alpine-bottom-flowed '2026-03-01 14:40:00' bottom
alpine_reply alpine-top-flowed '2026-03-01 14:41:00' top
alpine_reply alpine-interleaved-flowed '2026-03-01 14:42:00' interleaved
fi

echo "versions:"
mutt -v | head -1
neomutt -v | head -1
s-nail -V
alpine -v | head -1
