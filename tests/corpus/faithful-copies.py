#!/usr/bin/env python3
"""The faithful copies of tests/corpus/replies: replies of mail clients that
cannot run on this machine (Outlook, Gmail, Apple Mail, iOS, Samsung, ...)
and four automatic mails, each laid out as that client lays it out
(headers, MIME structure, attribution, quoting, HTML, transfer encoding,
line ends), quoting the real prompt (tests/corpus/prompt-austria.eml).

Writes <name>.eml and its expectation <name>.toml for each. The real-client
replies come from scripts/client-corpus.sh instead; their .toml files are
written by hand. Deterministic: running it again rewrites the same bytes.

Usage: python3 tests/corpus/faithful-copies.py [OUT_DIR]   (default: replies/ beside this file)
"""
import base64
import email
import html
import os
import quopri
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, 'replies')
RAW_PROMPT = open(os.path.join(HERE, 'prompt-austria.eml'), 'rb').read()
PROMPT = next(p for p in email.message_from_bytes(RAW_PROMPT).walk()
              if p.get_content_type() == 'text/plain').get_payload(decode=True).decode('utf-8').replace('\r\n', '\n')
P = PROMPT.split('\n')
if P[-1] == '':
    P = P[:-1]

TOKEN_ADDR = 'game+corpus.c89c62b089d9bf7c@adjutant.local'
SUBJ = '[corpus] step 1: your orders are awaited (setup)'
RE_SUBJ = 'Re: ' + SUBJ
MID = '<corpus.2.3@adjutant.local>'

PL1 = 'PLACE Laudon AT Rovereto'
PL2 = 'PLACE Vukassovich AT Riva'
PRESS_EN = ('PRESS ALL Greetings from Vienna: the Emperor sends his regards and hopes '
            'this campaign will be short and honourable for everybody')
PRESS_DE = ('PRESS ALL Grüße aus Wien: der Kaiser lässt grüßen und hofft, dass dieser '
            'Feldzug kurz und ehrenvoll für alle sein wird')
PRESS_FR = ("PRESS ALL Salutations de Vienne : l'Empereur vous adresse ses hommages et "
            "espère que cette campagne sera brève et honorable pour tous")
PRESS_IT = ("PRESS ALL Saluti da Vienna: l'Imperatore vi manda i suoi omaggi e spera che "
            "questa campagna sia breve e onorevole per tutti")
PRESS_NL = ('PRESS ALL Groeten uit Wenen: de keizer doet u zijn groeten en hoopt dat deze '
            'veldtocht kort en eervol zal zijn voor iedereen')
PRESS_SHORT_AT = 'PRESS france Grüße aus Wien, à bientôt à Mantoue.'

EN = ('Hi,', 'here are my orders:', 'Thanks!', 'Alice')
DE = ('Hallo,', 'hier meine Befehle:', 'Danke!', 'Alice')
FR = ('Bonjour,', 'voici mes ordres :', 'Merci !', 'Alice')
IT = ('Ciao,', 'ecco i miei ordini:', 'Grazie!', 'Alice')
ES = ('Hola,', 'aquí van mis órdenes:', '¡Gracias!', 'Alice')
NL = ('Hoi,', 'hier zijn mijn orders:', 'Bedankt!', 'Alice')


def mine(prose, orders):
    """The player's own text as lines: greeting, intro, orders, closing."""
    hi, intro, thanks, name = prose
    return [hi, '', intro, '', *orders, '', thanks, name]


# ------------------------------------------------------------------ encoders
def qp(text, charset='utf-8'):
    """Quoted-printable as mail clients write it: 76 columns, = soft breaks."""
    data = text.encode(charset)
    out = quopri.encodestring(data, quotetabs=False).decode('ascii')
    return out


def b64(data):
    return base64.encodebytes(data).decode('ascii')


def flowed(line, width=72):
    """RFC 3676 soft wrap: every broken line keeps a trailing space."""
    if len(line) <= width + 6:
        return [line]
    words = line.split(' ')
    out, cur = [], ''
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            out.append(cur + ' ')
            cur = w
        else:
            cur = f'{cur} {w}' if cur else w
    out.append(cur)
    return out


def hardwrap(line, width, prefix=''):
    """Greedy hard wrap at spaces (Gmail's text/plain rendition: 76)."""
    full = prefix + line
    if len(full) <= width:
        return [full]
    out = []
    rest = line
    while len(prefix + rest) > width:
        room = width - len(prefix)
        cut = rest.rfind(' ', 0, room + 1)
        if cut <= 0:
            cut = rest.find(' ', room)
            if cut < 0:
                break
        out.append(prefix + rest[:cut])
        rest = rest[cut + 1:]
    out.append(prefix + rest)
    return out


def is_art(line):
    return '   ' in line


def esc(s):
    return html.escape(s, quote=False)


def spaces_outlook(s):
    """Exchange 'PlainText' conversion: a leading space and all but the last
    space of a run become &nbsp;."""
    out = []
    i = 0
    n = len(s)
    while i < n:
        if s[i] == ' ':
            j = i
            while j < n and s[j] == ' ':
                j += 1
            run = j - i
            if i == 0:
                out.append('&nbsp;' * run)
            elif run == 1:
                out.append(' ')
            else:
                out.append('&nbsp;' * (run - 1) + ' ')
            i = j
        else:
            out.append(esc(s[i]))
            i += 1
    return ''.join(out)


def spaces_alt(s, nb='\u00a0'):
    """Gmail / Apple / Samsung: runs alternate NBSP and space, NBSP first."""
    out = []
    i = 0
    n = len(s)
    while i < n:
        if s[i] == ' ':
            j = i
            while j < n and s[j] == ' ':
                j += 1
            run = j - i
            if run == 1 and i != 0:
                out.append(' ')
            else:
                out.append(''.join(nb if k % 2 == 0 else ' ' for k in range(run)))
            i = j
        else:
            out.append(esc(s[i]))
            i += 1
    return ''.join(out)


def spaces_word(s):
    """Word: <span style='mso-spacerun:yes'> for runs of spaces."""
    out = []
    i = 0
    n = len(s)
    while i < n:
        if s[i] == ' ':
            j = i
            while j < n and s[j] == ' ':
                j += 1
            run = j - i
            if run == 1 and i != 0:
                out.append(' ')
            else:
                out.append("<span style='mso-spacerun:yes'>" + '&nbsp;' * (run - 1) + ' </span>')
            i = j
        else:
            out.append(esc(s[i]))
            i += 1
    return ''.join(out)


# ------------------------------------------------------------------ writers
WRITTEN = []


def write(name, headers, body, eol='\n', client='', layout='', lines=(), ignored=(),
          automatic=False, comments=()):
    """headers: list of 'Name: value' strings (continuations with leading
    whitespace allowed, '\n' inside for folding). body: str (ASCII after
    encoding) or bytes."""
    head = '\n'.join(headers).replace('\n', eol) + eol + eol
    if isinstance(body, str):
        body = body.replace('\r\n', '\n').replace('\n', eol).encode('latin-1')
    else:
        body = body.replace(b'\r\n', b'\n').replace(b'\n', eol.encode())
    data = head.encode('latin-1') + body
    with open(os.path.join(OUT, name + '.eml'), 'wb') as f:
        f.write(data)
    t = []
    t.append(f'client = {tq(client)}')
    t.append(f'layout = {tq(layout)}')
    for c in comments:
        t.append('# ' + c)
    t.append('# Every line the reader must read, in order, exactly as they should come out')
    t.append('# (soft-wrapped lines joined back into one):')
    t.append('lines = [' + ', '.join(tq(x) for x in lines) + ']')
    t.append('# Free-text lines of the player\'s own text that must be ignored and quoted back')
    t.append('# (not orders, not quotes, not signatures/footers):')
    t.append('ignored = [' + ', '.join(tq(x) for x in ignored) + ']')
    if automatic:
        t.append('# An automatic mail: nothing in it may be read or answered.')
        t.append('automatic = true')
    with open(os.path.join(OUT, name + '.toml'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(t) + '\n')
    WRITTEN.append(name)


def tq(s):
    """A TOML basic string."""
    r = s.replace('\\', '\\\\').replace('"', '\\"')
    return '"' + r + '"'


# ========================================================== 1. Thunderbird
def thunderbird(name, attribution, prose, orders, lang, msgid, date, comments=()):
    own = []
    for l in mine(prose, orders):
        own.extend(flowed(l))
    q = []
    for l in P:
        if l == '':
            q.append('>')
        elif len(l) > 76 and not is_art(l):
            parts = flowed(l, 70)
            q.extend('> ' + p for p in parts)
        else:
            q.append('> ' + l)
    body = '\n'.join([attribution] + q + [''] + own + ['', ''])
    headers = [
        f'Message-ID: <{msgid}@example.org>',
        f'Date: {date}',
        'MIME-Version: 1.0',
        'User-Agent: Mozilla Thunderbird',
        f'Subject: {RE_SUBJ}',
        f'To: adjutant <{TOKEN_ADDR}>',
        f'References: {MID}',
        f'Content-Language: {lang}',
        'From: Alice <alice@example.org>',
        f'In-Reply-To: {MID}',
        'Content-Type: text/plain; charset=UTF-8; format=flowed',
        'Content-Transfer-Encoding: 8bit',
    ]
    write(name, headers, body.encode('utf-8'), '\n',
          client='Thunderbird 128 (faithful copy)' if lang == 'en-US' else f'Thunderbird 128, {lang} (faithful copy)',
          layout='bottom-posted, format=flowed',
          lines=[o for o in orders], ignored=[x for x in prose], comments=comments)


thunderbird('thunderbird-bottom-flowed', 'On 3/1/26 14:00, adjutant wrote:', EN,
            [PL1, PL2, PRESS_EN, 'SALT thunderbird-1796'], 'en-US',
            '7b1e9c2a-4f3d-4e8b-9a6c-2d5f8e1b3c7a', 'Sun, 1 Mar 2026 14:18:42 +0100')
thunderbird('thunderbird-de-bottom', 'Am 01.03.26 um 14:00 schrieb adjutant:', DE,
            [PL1, PL2, PRESS_DE, 'SALT apfelstrudel-1796'], 'de-AT',
            'c3f0a8d1-2b6e-4f5a-9c7d-8e1f0a2b3c4d', 'Sun, 1 Mar 2026 14:19:05 +0100')
thunderbird('thunderbird-fr-bottom', 'Le 01/03/2026 à 14:00, adjutant a écrit :', FR,
            [PL1, PL2, PRESS_FR], 'fr',
            '0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a', 'Sun, 1 Mar 2026 14:19:31 +0100')
thunderbird('thunderbird-it-bottom', 'Il 01/03/26 14:00, adjutant ha scritto:', IT,
            [PL1, PL2, PRESS_IT], 'it-IT',
            '5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d', 'Sun, 1 Mar 2026 14:19:58 +0100')
thunderbird('thunderbird-nl-bottom', 'Op 01-03-2026 om 14:00 schreef adjutant:', NL,
            [PL1, PL2, PRESS_NL, 'SALT stroopwafel-1796'], 'nl',
            '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a', 'Sun, 1 Mar 2026 14:20:17 +0100')


# ============================================ 2. Outlook (Microsoft 365 look)
def outlook365(name, prose, orders, labels, sent, to_line, msgid, date, thread_index,
               footer_text=None, footer_html=None, html_only=False, lang='en-US',
               client='', comments=()):
    """Outlook for Microsoft 365 (Windows), new Outlook / Outlook on the web
    and Outlook for iOS all answer a plain-text message the same way: the
    text on top, a rule, a From/Sent/To/Subject block, the original
    UNquoted."""
    lf, ls, lt, lsub = labels
    own = mine(prose, orders)
    # text/plain alternative
    tl = list(own)
    if footer_text:
        tl += ['', footer_text]
    tl += ['________________________________',
           f'{lf} adjutant <game@adjutant.local>',
           f'{ls} {sent}',
           f'{lt} {to_line}',
           f'{lsub} {SUBJ}',
           ''] + P + ['']
    text = '\n'.join(tl)
    # text/html
    font = ('font-family: Aptos, Aptos_EmbeddedFont, Aptos_MSFontService, Calibri, '
            'Helvetica, sans-serif; font-size: 12pt; color: rgb(0, 0, 0);')
    h = ['<html>', '<head>',
         '<meta http-equiv="Content-Type" content="text/html; charset=utf-8">',
         '<style type="text/css" style="display:none;"> P {margin-top:0;margin-bottom:0;} </style>',
         '</head>', '<body dir="ltr">']
    for l in own:
        h.append(f'<div class="elementToProof" style="{font}">')
        h.append((esc(l) if l else '<br>') + ('</div>' if l else ''))
        if not l:
            h.append('</div>')
    if footer_html:
        h.append(footer_html)
    h += ['<div id="appendonsend"></div>',
          '<hr style="display:inline-block;width:98%" tabindex="-1">',
          '<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" '
          f'color="#000000"><b>{esc(lf)}</b> adjutant &lt;game@adjutant.local&gt;<br>',
          f'<b>{esc(ls)}</b> {esc(sent)}<br>',
          f'<b>{esc(lt)}</b> {esc(to_line)}<br>',
          f'<b>{esc(lsub)}</b> {esc(SUBJ)}</font>',
          '<div>&nbsp;</div>', '</div>',
          '<div class="BodyFragment"><font size="2"><span style="font-size:11pt;">']
    body_lines = [spaces_outlook(l) for l in P]
    h.append('<div class="PlainText">' + '<br>\n'.join(body_lines) + '</div>')
    h += ['</span></font></div>', '</body>', '</html>', '']
    htm = '\n'.join(h)
    boundary = f'_000_{msgid.split("@")[0]}{msgid.split("@")[1].split(".")[0]}eurp_'
    headers = [
        'From: Alice Example <alice@example.org>',
        f'To: adjutant <{TOKEN_ADDR}>',
        f'Subject: {RE_SUBJ}',
        f'Thread-Topic: {SUBJ}',
        f'Thread-Index: {thread_index}',
        f'Date: {date}',
        f'Message-ID: <{msgid}>',
        f'References: {MID}',
        f'In-Reply-To: {MID}',
        f'Accept-Language: {lang}, de-AT',
        f'Content-Language: {lang}',
        'X-MS-Has-Attach: ',
        'X-MS-TNEF-Correlator: ',
        'msip_labels: ',
    ]
    if html_only:
        headers += ['Content-Type: text/html; charset="utf-8"',
                    'Content-Transfer-Encoding: quoted-printable',
                    'MIME-Version: 1.0']
        body = qp(htm)
    else:
        headers += ['Content-Type: multipart/alternative;',
                    f'\tboundary="{boundary}"',
                    'MIME-Version: 1.0']
        body = '\n'.join([
            f'--{boundary}',
            'Content-Type: text/plain; charset="utf-8"',
            'Content-Transfer-Encoding: quoted-printable',
            '',
            qp(text),
            f'--{boundary}',
            'Content-Type: text/html; charset="utf-8"',
            'Content-Transfer-Encoding: quoted-printable',
            '',
            qp(htm),
            f'--{boundary}--',
            ''])
    write(name, headers, body, '\r\n', client=client,
          layout='top-posted, original unquoted under a From/Sent/To/Subject block' +
          (', HTML only' if html_only else ', text/plain + text/html'),
          lines=orders, ignored=list(prose), comments=comments)


EN_LABELS = ('From:', 'Sent:', 'To:', 'Subject:')
FR_LABELS = ('De :', 'Envoyé :', 'À :', 'Objet :')

outlook365('outlook-desktop-top', EN, [PL1, PL2, PRESS_EN, 'SALT outlook-1796'], EN_LABELS,
           'Sunday, March 1, 2026 2:00 PM', 'alice@example.org <alice@example.org>',
           'AM9P195MB14274C3D2E1F0A9B8C7D6E5F4A3B2C1D0E9F@AM9P195MB1427.EURP195.PROD.OUTLOOK.COM',
           'Sun, 1 Mar 2026 13:21:37 +0000', 'AQHcqZ0rW2Rk7bO8T0qZQv1xJ3fN7bV4pXkQ',
           client='Outlook for Microsoft 365, Windows desktop (faithful copy)')
outlook365('outlook-web-html-only', EN, [PL1, PL2, PRESS_EN, 'SALT owa-1796'], EN_LABELS,
           'Sunday, 1 March 2026 14:00', 'alice@example.org <alice@example.org>',
           'DB9P195MB20816A5B4C3D2E1F0A9B8C7D6E5F4A3B2C1D@DB9P195MB2081.EURP195.PROD.OUTLOOK.COM',
           'Sun, 1 Mar 2026 13:23:02 +0000', 'AQHcqZ1aK8mXy3pLQ0W7vD2nR5sJ6tYbHcE=',
           html_only=True, lang='en-GB',
           client='Outlook on the web / new Outlook (faithful copy)',
           comments=['HTML only: read as a person sees it in a browser.'])
outlook365('outlook-ios-top', EN, [PL1, PL2, PRESS_EN], EN_LABELS,
           'Sunday, March 1, 2026 2:00:00 PM', 'alice@example.org <alice@example.org>',
           'PAXP195MB1688E2D3C4B5A6F7E8D9C0B1A2F3E4D5C6B7@PAXP195MB1688.EURP195.PROD.OUTLOOK.COM',
           'Sun, 1 Mar 2026 13:24:40 +0000', 'AQHcqZ2bL9nYz4qMR1X8wE3oS6tK7uZcIdF=',
           footer_text='Get Outlook for iOS<https://aka.ms/o0ukef>',
           footer_html='<div id="ms-outlook-mobile-signature" dir="auto">\n<div dir="auto">Get '
                       '<a href="https://aka.ms/o0ukef">Outlook for iOS</a></div>\n</div>',
           client='Outlook for iOS (faithful copy)',
           comments=['"Get Outlook for iOS<https://aka.ms/o0ukef>" is a client footer.'])
outlook365('outlook-fr-top', FR, [PL1, PL2, 'SALT madeleine-1796'], FR_LABELS,
           'dimanche 1 mars 2026 14:00', 'alice@example.org <alice@example.org>',
           'VI1P195MB0529F1E2D3C4B5A6978877665544332211AA@VI1P195MB0529.EURP195.PROD.OUTLOOK.COM',
           'Sun, 1 Mar 2026 13:25:51 +0000', 'AQHcqZ3cM0oZa5rNS2Y9xF4pT7uL8vAdJeG=',
           lang='fr-FR', client='Outlook for Microsoft 365, French (faithful copy)')


# ========================= 3. Outlook classic, plain text: -----Original Message-----
def outlook_plain():
    prose = ('Grüß Gott,', 'here are my orders:', 'Thanks!', 'Alice')
    orders = [PL1, PL2, PRESS_SHORT_AT, 'SALT sachertorte-42']
    tl = mine(prose, orders) + ['', '-----Original Message-----',
                                'From: adjutant <game@adjutant.local> ',
                                'Sent: Sunday, March 1, 2026 2:00 PM',
                                'To: alice@example.org',
                                f'Subject: {SUBJ}', ''] + P + ['']
    text = '\n'.join(tl)
    headers = [
        'From: "Alice Example" <alice@example.org>',
        f'To: "\'adjutant\'" <{TOKEN_ADDR}>',
        f'References: {MID}',
        f'In-Reply-To: {MID}',
        f'Subject: {RE_SUBJ}',
        'Date: Sun, 1 Mar 2026 14:27:19 +0100',
        'Message-ID: <000d01dca9b4$5e7c2f10$1b748d30$@example.org>',
        'MIME-Version: 1.0',
        'Content-Type: text/plain;',
        '\tcharset="windows-1252"',
        'Content-Transfer-Encoding: quoted-printable',
        'X-Mailer: Microsoft Outlook 16.0',
        'Thread-Index: AQHcqZ4dN1pAb6sOT3Z0yG5qU8vM9wBeKfH=',
        'Content-Language: de-at',
    ]
    write('outlook-original-message-top', headers, qp(text, 'cp1252'), '\r\n',
          client='Outlook 2021 (classic, Windows), plain-text reply (faithful copy)',
          layout='top-posted, -----Original Message----- block, original unquoted, windows-1252 quoted-printable',
          lines=orders, ignored=list(prose))


outlook_plain()


# ============================ 4. Outlook classic (Word HTML), German
def outlook_word_de():
    prose = DE
    orders = [PL1, PL2, PRESS_DE, 'SALT sachertorte-42']
    own = mine(prose, orders)
    tl = [(l if l else ' ') for l in own]
    tl += [' ', 'Von: adjutant <game@adjutant.local> ',
           'Gesendet: Sonntag, 1. März 2026 14:00',
           'An: alice@example.org',
           f'Betreff: {SUBJ}', ' '] + P + ['']
    text = '\n'.join(tl)
    css = '''<style><!--
/* Font Definitions */
@font-face
	{font-family:"Cambria Math";
	panose-1:2 4 5 3 5 4 6 3 2 4;}
@font-face
	{font-family:Calibri;
	panose-1:2 15 5 2 2 2 4 3 2 4;}
@font-face
	{font-family:Aptos;}
/* Style Definitions */
p.MsoNormal, li.MsoNormal, div.MsoNormal
	{margin:0cm;
	font-size:12.0pt;
	font-family:"Aptos",sans-serif;
	mso-ligatures:standardcontextual;
	mso-fareast-language:EN-US;}
a:link, span.MsoHyperlink
	{mso-style-priority:99;
	color:#467886;
	text-decoration:underline;}
p.MsoPlainText, li.MsoPlainText, div.MsoPlainText
	{mso-style-priority:99;
	mso-style-link:"Nur Text Zchn";
	margin:0cm;
	font-size:11.0pt;
	font-family:"Calibri",sans-serif;
	mso-ligatures:standardcontextual;
	mso-fareast-language:EN-US;}
span.NurTextZchn
	{mso-style-name:"Nur Text Zchn";
	mso-style-priority:99;
	mso-style-link:"Nur Text";
	font-family:"Calibri",sans-serif;}
.MsoChpDefault
	{mso-style-type:export-only;
	font-size:10.0pt;
	mso-ligatures:none;}
@page WordSection1
	{size:612.0pt 792.0pt;
	margin:70.85pt 70.85pt 2.0cm 70.85pt;}
div.WordSection1
	{page:WordSection1;}
--></style>'''
    h = ('<html xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" '
         'xmlns:w="urn:schemas-microsoft-com:office:word" xmlns:m="http://schemas.microsoft.com/office/2004/12/omml" '
         'xmlns="http://www.w3.org/TR/REC-html40"><head><meta http-equiv=Content-Type content="text/html; charset=utf-8">'
         '<meta name=Generator content="Microsoft Word 15 (filtered medium)">' + css +
         '<!--[if gte mso 9]><xml>\n<o:shapedefaults v:ext="edit" spidmax="1026" />\n</xml><![endif]-->'
         '<!--[if gte mso 9]><xml>\n<o:shapelayout v:ext="edit">\n<o:idmap v:ext="edit" data="1" />\n'
         '</o:shapelayout></xml><![endif]--></head>'
         '<body lang=DE-AT link="#467886" vlink="#96607D" style=\'word-wrap:break-word\'><div class=WordSection1>')
    for l in own:
        h += ('<p class=MsoNormal>' + esc(l) + '<o:p></o:p></p>') if l else '<p class=MsoNormal><o:p>&nbsp;</o:p></p>'
    h += ('<p class=MsoNormal><o:p>&nbsp;</o:p></p>'
          "<div><div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'>"
          '<p class=MsoNormal><b><span lang=DE style=\'font-size:11.0pt;font-family:"Calibri",sans-serif\'>Von:</span></b>'
          '<span lang=DE style=\'font-size:11.0pt;font-family:"Calibri",sans-serif\'> adjutant &lt;game@adjutant.local&gt; <br>'
          '<b>Gesendet:</b> Sonntag, 1. März 2026 14:00<br><b>An:</b> alice@example.org<br>'
          f'<b>Betreff:</b> {esc(SUBJ)}<o:p></o:p></span></p></div></div>'
          '<p class=MsoPlainText><o:p>&nbsp;</o:p></p>')
    for l in P:
        h += ('<p class=MsoPlainText>' + spaces_word(l) + '<o:p></o:p></p>') if l else \
            '<p class=MsoPlainText><o:p>&nbsp;</o:p></p>'
    h += '</div></body></html>\n'
    boundary = '_000_AS8P195MB1966D0C1B2A3F4E5D6C7B8A9F0E1D2C3AS8P195MB1966EURP_'
    headers = [
        'From: Alice Example <alice@example.org>',
        f'To: adjutant <{TOKEN_ADDR}>',
        f'Subject: {RE_SUBJ}',
        f'Thread-Topic: {SUBJ}',
        'Thread-Index: AQHcqZ5eO2qBc7tPU4a1zH6rV9wN0xCfLgI=',
        'Date: Sun, 1 Mar 2026 13:28:44 +0000',
        'Message-ID: <AS8P195MB1966D0C1B2A3F4E5D6C7B8A9F0E1D2C3@AS8P195MB1966.EURP195.PROD.OUTLOOK.COM>',
        f'References: {MID}',
        f'In-Reply-To: {MID}',
        'Accept-Language: de-AT, en-US',
        'Content-Language: de-DE',
        'X-MS-Has-Attach: ',
        'X-MS-TNEF-Correlator: ',
        'Content-Type: multipart/alternative;',
        f'\tboundary="{boundary}"',
        'MIME-Version: 1.0',
    ]
    body = '\n'.join([f'--{boundary}', 'Content-Type: text/plain; charset="utf-8"',
                      'Content-Transfer-Encoding: quoted-printable', '', qp(text),
                      f'--{boundary}', 'Content-Type: text/html; charset="utf-8"',
                      'Content-Transfer-Encoding: quoted-printable', '', qp(h),
                      f'--{boundary}--', ''])
    write('outlook-de-top', headers, body, '\r\n',
          client='Outlook (classic, Windows), German, Word HTML (faithful copy)',
          layout='top-posted, Von:/Gesendet:/An:/Betreff: block, original unquoted, text/plain + text/html',
          lines=orders, ignored=list(prose),
          comments=['The text/plain part has a single space on every empty paragraph, as Outlook writes it.'])


outlook_word_de()


# ================================================================= 5. Gmail
def gmail(name, prose, orders, attribution_text, attribution_html, msgid, date, comments=()):
    own = mine(prose, orders)
    tl = []
    for l in own:
        tl.extend(hardwrap(l, 76))
    tl.append('')
    tl.extend(hardwrap(attribution_text, 76))
    tl.append('')
    for l in P:
        if l == '':
            tl.append('>')
        else:
            tl.extend(hardwrap(l, 76, '> '))
    tl += ['>', '']
    text = '\n'.join(tl)
    h = '<div dir="ltr">'
    for l in own:
        h += '<div>' + (esc(l).replace("'", '&#39;') if l else '<br>') + '</div>'
    h += ('</div><br><div class="gmail_quote gmail_quote_container"><div dir="ltr" class="gmail_attr">'
          + attribution_html + '<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;'
          'border-left:1px solid rgb(204,204,204);padding-left:1ex">')
    h += '<br>'.join(spaces_alt(l).replace("'", '&#39;') for l in P) + '<br>'
    h += '</blockquote></div>\n'
    boundary = '0000000000005a8f3e0625c1d2e3' if name == 'gmail-top' else (
        '000000000000c4e1a70625c1d3f7' if name == 'gmail-top-long-line' else '0000000000009b2d5f0625c1d4a8')
    headers = [
        'MIME-Version: 1.0',
        f'References: {MID}',
        f'In-Reply-To: {MID}',
        'From: Alice Example <alice@example.org>',
        f'Date: {date}',
        f'Message-ID: <{msgid}@mail.gmail.com>',
        f'Subject: {RE_SUBJ}',
        f'To: adjutant <{TOKEN_ADDR}>',
        f'Content-Type: multipart/alternative; boundary="{boundary}"',
    ]
    body = '\n'.join([f'--{boundary}', 'Content-Type: text/plain; charset="UTF-8"',
                      'Content-Transfer-Encoding: quoted-printable', '', qp(text),
                      f'--{boundary}', 'Content-Type: text/html; charset="UTF-8"',
                      'Content-Transfer-Encoding: quoted-printable', '', qp(h),
                      f'--{boundary}--', ''])
    write(name, headers, body, '\n', client='Gmail web (faithful copy)' if 'es' not in name else
          'Gmail web, Spanish (faithful copy)',
          layout='top-posted, > quotes in text/plain, gmail_quote blockquote in text/html',
          lines=orders, ignored=list(prose), comments=comments)


NNBSP = '\u202f'
gmail('gmail-top', EN, [PL1, PL2, 'SALT gmail-1796'],
      f'On Sun, Mar 1, 2026 at 2:00{NNBSP}PM adjutant <game@adjutant.local> wrote:',
      f'On Sun, Mar 1, 2026 at 2:00{NNBSP}PM adjutant &lt;<a href="mailto:game@adjutant.local">'
      'game@adjutant.local</a>&gt; wrote:',
      'CAF7h2kq3Vb+9xYzR0t1nLm4pQ8sWc6dJ5eUo2aG7iH3bN9k1Tw', 'Sun, 1 Mar 2026 14:21:09 +0100',
      comments=['Gmail puts U+202F (narrow no-break space) between the time and "PM" in the attribution.'])
gmail('gmail-top-long-line', EN, [PL1, PL2, PRESS_EN],
      f'On Sun, Mar 1, 2026 at 2:00{NNBSP}PM adjutant <game@adjutant.local> wrote:',
      f'On Sun, Mar 1, 2026 at 2:00{NNBSP}PM adjutant &lt;<a href="mailto:game@adjutant.local">'
      'game@adjutant.local</a>&gt; wrote:',
      'CAF7h2kqX1c-8Zq0mUe4Rb7tYs2Pk9Lw3Nd6Vf5Hj1Ga8oEiT2Q', 'Sun, 1 Mar 2026 14:22:30 +0100',
      comments=['HARD CASE: Gmail hard-wraps its text/plain alternative at 76 columns, so there the',
                'PRESS line is split in two real lines; only the text/html part has it whole,',
                'as the player typed it and as a person sees it.'])
gmail('gmail-es-top', ES, [PL1, PL2, 'SALT churros-1796'],
      'El dom, 1 mar 2026 a las 14:00, adjutant (<game@adjutant.local>) escribió:',
      'El dom, 1 mar 2026 a las 14:00, adjutant (&lt;<a href="mailto:game@adjutant.local">'
      'game@adjutant.local</a>&gt;) escribió:',
      'CAF7h2krN4d+Qx7Lm2Wp9Ys1Tz8Ka6Vb3Ue5Rc0Jh4Gf7oDiS3P', 'Sun, 1 Mar 2026 14:23:48 +0100')


# ====================================================== 6. Apple Mail (macOS)
def apple_mail():
    prose = EN
    orders = [PL1, PL2, PRESS_EN, 'SALT apple-1796']
    own = mine(prose, orders)
    attr = 'On 1 Mar 2026, at 14:00, adjutant <game@adjutant.local> wrote:'
    tl = [f'> {attr}', '>'] + [('> ' + l) if l else '>' for l in P] + [''] + own + ['']
    text = '\n'.join(tl)
    h = ('<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head>'
         '<body style="overflow-wrap: break-word; -webkit-nbsp-mode: space; line-break: after-white-space;">'
         '<br id="lineBreakAtBeginningOfMessage"><div><br><blockquote type="cite"><div>On 1 Mar 2026, at 14:00, '
         'adjutant &lt;game@adjutant.local&gt; wrote:</div><br class="Apple-interchange-newline"><div><div>')
    h += ''.join(('<div>' + spaces_alt(l, '&nbsp;') + '</div>') if l else '<div><br></div>' for l in P)
    h += '</div></div></blockquote></div><br>'
    h += ''.join(('<div>' + esc(l) + '</div>') if l else '<div><br></div>' for l in own)
    h += '</body></html>'
    boundary = 'Apple-Mail=_5E1C3A2B-7D4F-4A9E-8B6C-1F2E3D4C5B6A'
    headers = [
        'Content-Type: multipart/alternative;',
        f'\tboundary="{boundary}"',
        'Mime-Version: 1.0 (Mac OS X Mail 16.0 \\(3826.400.131.1.6\\))',
        f'Subject: {RE_SUBJ}',
        'From: Alice Example <alice@example.org>',
        f'In-Reply-To: {MID}',
        'Date: Sun, 1 Mar 2026 14:26:33 +0100',
        'Cc: ',
        'Message-Id: <8F3A1C2E-5B7D-4E9F-A1B2-C3D4E5F6A7B8@example.org>',
        f'References: {MID}',
        f'To: adjutant <{TOKEN_ADDR}>',
        'X-Mailer: Apple Mail (2.3826.400.131.1.6)',
    ]
    body = '\n'.join(['', f'--{boundary}', 'Content-Transfer-Encoding: quoted-printable',
                      'Content-Type: text/plain;', '\tcharset=utf-8', '', qp(text),
                      f'--{boundary}', 'Content-Transfer-Encoding: quoted-printable',
                      'Content-Type: text/html;', '\tcharset=utf-8', '', qp(h),
                      f'--{boundary}--', ''])
    write('apple-mail-bottom', headers, body, '\n', client='Apple Mail 16, macOS (faithful copy)',
          layout='bottom-posted, attribution inside the quote, blockquote type="cite"',
          lines=orders, ignored=list(prose))


apple_mail()


# =========================================================== 7. iOS Mail
IOS_ATTR = '> On 1 Mar 2026, at 14:00, adjutant <game@adjutant.local> wrote:'


def ios_quote():
    q = [IOS_ATTR, '> ']
    first = True
    for l in P:
        if first:
            q.append('> \ufeff' + l)
            first = False
        else:
            q.append(('> ' + l) if l else '> ')
    return q


def ios_mail():
    prose = EN
    orders = [PL1, PL2, PRESS_EN]
    tl = mine(prose, orders) + ['', 'Sent from my iPhone', ''] + ios_quote()
    text = '\n'.join(tl) + '\n'
    headers = [
        'Content-Type: text/plain;',
        '\tcharset=utf-8',
        'Content-Transfer-Encoding: quoted-printable',
        'From: Alice <alice@example.org>',
        'Mime-Version: 1.0 (1.0)',
        f'Subject: {RE_SUBJ}',
        'Date: Sun, 1 Mar 2026 14:29:51 +0100',
        'Message-Id: <A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D@example.org>',
        f'References: {MID}',
        f'In-Reply-To: {MID}',
        f'To: adjutant <{TOKEN_ADDR}>',
        'X-Mailer: iPhone Mail (22D82)',
    ]
    write('ios-mail-top', headers, qp(text), '\n', client='iOS Mail 18 (faithful copy)',
          layout='top-posted, "Sent from my iPhone", quoted-printable, BOM after the attribution',
          lines=orders, ignored=list(prose),
          comments=['iOS starts the first quoted line with U+FEFF ("> =EF=BB=BF...").'])


ios_mail()


def ios_photo():
    prose_lines = ['Hi,', '', 'here are my orders:', '', PL1, PL2, 'SALT camp-photo-1796', '',
                   'And a picture of our camp at Rovereto.', '']
    rest = ['', 'Thanks!', 'Alice', '', 'Sent from my iPhone', ''] + ios_quote()
    rng = random.Random(1796)
    n = 3_000_000
    jpeg = (b'\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00H\x00H\x00\x00'
            + rng.randbytes(n - 22) + b'\xff\xd9')
    boundary = 'Apple-Mail-3F9A2C1D-8E7B-4C6D-9A5E-1B2C3D4E5F60'
    headers = [
        f'Content-Type: multipart/mixed; boundary={boundary}',
        'Content-Transfer-Encoding: 7bit',
        'From: Alice <alice@example.org>',
        'Mime-Version: 1.0 (1.0)',
        f'Subject: {RE_SUBJ}',
        'Date: Sun, 1 Mar 2026 14:31:07 +0100',
        'Message-Id: <D4C3B2A1-6F5E-4B7A-9D8C-5C4B3A2F1E0D@example.org>',
        f'References: {MID}',
        f'In-Reply-To: {MID}',
        f'To: adjutant <{TOKEN_ADDR}>',
        'X-Mailer: iPhone Mail (22D82)',
    ]
    body = '\n'.join([
        '', f'--{boundary}', 'Content-Type: text/plain;', '\tcharset=us-ascii',
        'Content-Transfer-Encoding: 7bit', '', '\n'.join(prose_lines),
        f'--{boundary}', 'Content-Type: image/jpeg;', '\tname=IMG_0423.jpeg;',
        '\tx-apple-part-url=8C2B3A4D-1E5F-4A6B-9C7D-0E8F1A2B3C4D',
        'Content-Disposition: inline;', '\tfilename=IMG_0423.jpeg',
        'Content-Transfer-Encoding: base64', '', b64(jpeg),
        f'--{boundary}', 'Content-Type: text/plain;', '\tcharset=utf-8',
        'Content-Transfer-Encoding: quoted-printable', '', qp('\n'.join(rest) + '\n'),
        f'--{boundary}--', ''])
    write('ios-mail-top-photo', headers, body, '\n',
          client='iOS Mail 18, with a photo (faithful copy)',
          layout='top-posted, text split around a ~3 MB inline image/jpeg (multipart/mixed, three parts)',
          lines=[PL1, PL2, 'SALT camp-photo-1796'],
          ignored=['Hi,', 'here are my orders:', 'And a picture of our camp at Rovereto.', 'Thanks!', 'Alice'],
          comments=['iOS splits the text where the photo was inserted: the orders are in the first',
                    'text/plain part, "Thanks!", the footer and the quote in the third.'])


ios_photo()


# ========================================================== 8. Samsung Email
def samsung(name, prose, orders, sep, labels, datestr, footer, html_only, msgid, date, client, comments=()):
    lf, ld, lt, ls = labels
    own = mine(prose, orders)
    tl = list(own) + ['', '', '']
    if footer:
        tl += [footer, '', '', '']
    tl += [sep, f'{lf} adjutant <game@adjutant.local>', f'{ld} {datestr}', f'{lt} alice@example.org',
           f'{ls} {SUBJ}', ''] + P + ['']
    text = '\n'.join(tl)
    h = '<html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"></head><body>'
    h += ''.join('<div dir="auto">' + (esc(l) if l else '<br>') + '</div>' for l in own)
    h += '<div dir="auto"><br></div><div dir="auto"><br></div>'
    if footer:
        h += ('<div id="composer_signature" dir="auto"><div style="font-size:12px;color:#575757" dir="auto">'
              + esc(footer) + '</div></div>')
    h += ('<div dir="auto"><br></div><div><br></div><div align="left" dir="auto" style="font-size:100%;color:#000000">'
          f'<div>{esc(sep)}</div><div>{esc(lf)} adjutant &lt;game@adjutant.local&gt; </div>'
          f'<div>{esc(ld)} {esc(datestr)} </div><div>{esc(lt)} alice@example.org </div>'
          f'<div>{esc(ls)} {esc(SUBJ)} </div><div><br></div></div>')
    h += '<br>'.join(spaces_alt(l, '&nbsp;') for l in P) + '<br></body></html>'
    headers = [
        f'Message-ID: <{msgid}@email.android.com>',
        f'Date: {date}',
        'From: Alice <alice@example.org>',
        f'To: adjutant <{TOKEN_ADDR}>',
        f'Subject: {RE_SUBJ}',
        f'In-Reply-To: {MID}',
        f'References: {MID}',
        'MIME-Version: 1.0',
    ]
    if html_only:
        headers += ['Content-Type: text/html; charset=UTF-8', 'Content-Transfer-Encoding: base64']
        body = b64(h.encode('utf-8'))
    else:
        boundary = '--_com.samsung.android.email_1772371523647860'
        headers += [f'Content-Type: multipart/alternative; boundary="{boundary}"']
        body = '\n'.join(['', f'--{boundary}', 'Content-Type: text/plain; charset=utf-8',
                          'Content-Transfer-Encoding: base64', '', b64(text.encode('utf-8')),
                          f'--{boundary}', 'Content-Type: text/html; charset=utf-8',
                          'Content-Transfer-Encoding: base64', '', b64(h.encode('utf-8')),
                          f'--{boundary}--', ''])
    write(name, headers, body, '\n', client=client,
          layout='top-posted, "' + sep.strip('- ') + '" block, original unquoted' +
          (', HTML only, base64' if html_only else ', text/plain + text/html, base64'),
          lines=orders, ignored=list(prose), comments=comments)


samsung('samsung-email-top', EN, [PL1, PL2, PRESS_EN], '-------- Original message --------',
        ('From:', 'Date:', 'To:', 'Subject:'), '01/03/2026 14:00 (GMT+01:00)', 'Sent from my Galaxy',
        False, 'k2x7q9w3e5r1t8y4u6i0o2p4.1772371523647@email', 'Sun, 01 Mar 2026 14:25:23 +0100',
        'Samsung Email 6.1 (faithful copy)', comments=['"Sent from my Galaxy" is a client footer.'])
samsung('samsung-email-de-top-html-only', DE, [PL1, PL2, PRESS_DE],
        '-------- Ursprüngliche Nachricht --------', ('Von:', 'Datum:', 'An:', 'Betreff:'),
        '01.03.26 14:00 (GMT+01:00)', None, True, 'p8o6i4u2y0t9r7e5w3q1a2s4.1772371688110@email',
        'Sun, 01 Mar 2026 14:28:08 +0100', 'Samsung Email 6.1, German, HTML only (faithful copy)',
        comments=['HTML only: read as a person sees it.'])
samsung('samsung-email-fr-top', FR, [PL1, PL2, 'SALT croissant-1796'],
        "-------- Message d'origine --------", ('De :', 'Date :', 'À :', 'Objet :'),
        '01/03/2026 14:00 (GMT+01:00)', None, False, 'z1x3c5v7b9n2m4a6s8d0f2g4.1772371801977@email',
        'Sun, 01 Mar 2026 14:30:01 +0100', 'Samsung Email 6.1, French (faithful copy)')


# ============================================================== 9. Roundcube
def roundcube():
    prose = EN
    orders = [PL1, PL2, PRESS_EN, 'SALT roundcube-1796']
    own = mine(prose, orders)
    sig = ['Alice Example', 'Vienna, Austria']
    tl = ['On 2026-03-01 14:00, adjutant wrote:']
    for l in P:
        if l == '':
            tl.append('>')
        elif len(l) > 76 and not is_art(l):
            tl.extend('> ' + p for p in flowed(l, 70))
        else:
            tl.append('> ' + l)
    tl.append('')
    for l in own:
        tl.extend(flowed(l))
    tl += ['', '-- ', *sig, '']
    text = '\n'.join(tl)
    h = ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8" /></head>'
         "<body style='font-size: 10pt; font-family: Verdana,Geneva,sans-serif'>\n"
         '<p>On 2026-03-01 14:00, adjutant wrote:</p>\n'
         '<blockquote type="cite" style="padding: 0 0.4em; border-left: #1010ff 2px solid; margin: 0">'
         '<!-- html ignored --><!-- head ignored --><!-- meta ignored -->\n'
         '<div class="pre" style="margin: 0; padding: 0; font-family: monospace">')
    h += '<br />\n'.join(spaces_outlook(l) for l in P)
    h += '</div>\n</blockquote>\n'
    h += '<p>Hi,</p>\n<p>here are my orders:</p>\n<p>' + '<br />'.join(esc(o) for o in orders) + '</p>\n'
    h += '<p>Thanks!<br />Alice</p>\n'
    h += '<div id="signature">--&nbsp;<br />Alice Example<br />Vienna, Austria</div>\n</body></html>\n'
    boundary = '=_3b9f1c2d4e5a6b7c8d9e0f1a2b3c4d5e'
    headers = [
        'MIME-Version: 1.0',
        'Date: Sun, 01 Mar 2026 14:32:10 +0100',
        'From: Alice <alice@example.org>',
        f'To: adjutant <{TOKEN_ADDR}>',
        f'Subject: {RE_SUBJ}',
        f'In-Reply-To: {MID}',
        f'References: {MID}',
        'Message-ID: <4a1e9f6b2c3d8e7f5a0b1c2d3e4f5a6b@example.org>',
        'X-Sender: alice@example.org',
        'User-Agent: Roundcube Webmail/1.6.9',
        'Content-Type: multipart/alternative;',
        f' boundary="{boundary}"',
    ]
    body = '\n'.join([f'--{boundary}', 'Content-Transfer-Encoding: quoted-printable',
                      'Content-Type: text/plain; charset=UTF-8;', ' format=flowed', '', qp(text),
                      f'--{boundary}', 'Content-Transfer-Encoding: quoted-printable',
                      'Content-Type: text/html; charset=UTF-8', '', qp(h),
                      f'--{boundary}--', ''])
    write('roundcube-bottom', headers, body, '\n', client='Roundcube Webmail 1.6 (faithful copy)',
          layout='bottom-posted, HTML compose: text/plain format=flowed + text/html blockquote type="cite", signature',
          lines=orders, ignored=list(prose),
          comments=['Roundcube always sends a text/plain alternative with HTML; its HTML part has',
                    'the signature as --&nbsp;<br /> inside <div id="signature">.'])


roundcube()


# ================================================================ 10. The Bat!
def the_bat():
    prose = ('Hi,', 'here are my orders:', 'Schöne Grüße,', 'Alice')
    orders = [PL1, PL2, PRESS_SHORT_AT, 'SALT fledermaus-1796']
    tl = ['Hello adjutant,', '', 'Sunday, March 1, 2026, 2:00:00 PM, you wrote:', '']
    for l in P:
        if l == '':
            tl.append('')
        elif len(l) > 76 and not is_art(l):
            tl.extend(hardwrap(l, 76, 'a> '))
        else:
            tl.append('a> ' + l)
    tl += ['', ''] + mine(prose, orders) + ['', '', '', '-- ', 'Best regards,',
                                            ' Alice                            mailto:alice@example.org', '']
    text = '\n'.join(tl)
    headers = [
        'Date: Sun, 1 Mar 2026 14:35:12 +0100',
        'From: Alice <alice@example.org>',
        'Reply-To: Alice <alice@example.org>',
        'Message-ID: <1963512871.20260301143512@example.org>',
        f'To: adjutant <{TOKEN_ADDR}>',
        f'Subject: {RE_SUBJ}',
        f'In-Reply-To: {MID}',
        f'References: {MID}',
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=windows-1252',
        'Content-Transfer-Encoding: 8bit',
        'X-Mailer: The Bat! (v11.4.1) Professional',
    ]
    write('the-bat-bottom-cp1252', headers, text.encode('cp1252'), '\r\n',
          client='The Bat! 11 (faithful copy)',
          layout='bottom-posted, "Hello adjutant," + "…, you wrote:" attribution, a> quotes, windows-1252 8bit',
          lines=orders, ignored=['Hello adjutant,'] + list(prose),
          comments=['"Hello adjutant," is The Bat!\'s greeting template: free text above the attribution,',
                    'so it is quoted back with the player\'s own prose (nothing the player sent is dropped',
                    'unseen). The Bat! leaves empty quoted lines empty (no "a>").',
                    'The signature after "-- " is stripped.'])


the_bat()


# ============================================================== 11. Claws Mail
def claws():
    prose = EN
    orders = [PL1, PL2, 'PRESS france See you at Mantua.', 'SALT claws-1796']
    tl = ['On Sun, 01 Mar 2026 13:00:00 +0000', 'adjutant <game@adjutant.local> wrote:', '']
    for l in P:
        if l == '':
            tl.append('>')
        elif len(l) > 72 and not is_art(l):
            tl.extend(hardwrap(l, 72, '> '))
        else:
            tl.append('> ' + l)
    tl += [''] + mine(prose, orders) + ['']
    text = '\n'.join(tl)
    headers = [
        'Date: Sun, 1 Mar 2026 14:38:27 +0100',
        'From: Alice <alice@example.org>',
        f'To: adjutant <{TOKEN_ADDR}>',
        f'Subject: {RE_SUBJ}',
        'Message-ID: <20260301143827.5a9c3e1f@example.org>',
        f'In-Reply-To: {MID}',
        f'References: {MID}',
        'X-Mailer: Claws Mail 4.1.1 (GTK 3.24.38; x86_64-pc-linux-gnu)',
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=UTF-8',
        'Content-Transfer-Encoding: quoted-printable',
    ]
    write('claws-mail-bottom', headers, qp(text), '\n', client='Claws Mail 4.1 (faithful copy)',
          layout='bottom-posted, two-line attribution "On <date>\\n<sender> wrote:"',
          lines=orders, ignored=list(prose))


claws()


# ================================================================ 12. K-9 Mail
def k9():
    prose = EN
    orders = [PL1, PL2, PRESS_EN, 'SALT k9-1796']
    tl = mine(prose, orders) + ['', '-- ',
                                'Sent from my Android device with K-9 Mail. Please excuse my brevity.', '',
                                'On March 1, 2026 2:00:00 PM GMT+01:00, adjutant <game@adjutant.local> wrote:']
    tl += [('>' + l) for l in P] + ['']
    text = '\n'.join(tl)
    headers = [
        'Content-Type: text/plain;',
        ' charset=utf-8',
        'Content-Transfer-Encoding: quoted-printable',
        'User-Agent: K-9 Mail for Android',
        f'In-Reply-To: {MID}',
        f'References: {MID}',
        f'Subject: {RE_SUBJ}',
        'From: Alice <alice@example.org>',
        'Date: Sun, 01 Mar 2026 14:40:03 +0100',
        f'To: adjutant <{TOKEN_ADDR}>',
        'Message-ID: <5E0B7F2A-3C1D-4E6F-9A8B-7C6D5E4F3A2B@example.org>',
        'MIME-Version: 1.0',
    ]
    write('k9-mail-top-qp', headers, qp(text), '\n', client='K-9 Mail 6 (faithful copy)',
          layout='top-posted, signature then ">"-quoted original, quoted-printable ("--=20" delimiter)',
          lines=orders, ignored=list(prose),
          comments=['The "-- " delimiter arrives as "--=20": decode before looking for it.'])


k9()


# ======================================================= 13. Mail for Windows
def windows_mail():
    prose = EN
    orders = [PL1, PL2, PRESS_EN]
    own = mine(prose, orders)
    tl = list(own) + ['', 'Sent from Mail<https://go.microsoft.com/fwlink/?LinkId=550986> for Windows', '',
                      'From: adjutant<mailto:game@adjutant.local>',
                      'Sent: Sunday, 1 March 2026 14:00',
                      'To: alice@example.org<mailto:alice@example.org>',
                      f'Subject: {SUBJ}', ''] + P + ['']
    text = '\n'.join(tl)
    h = ('<html xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:w="urn:schemas-microsoft-com:office:word" '
         'xmlns:m="http://schemas.microsoft.com/office/2004/12/omml" xmlns="http://www.w3.org/TR/REC-html40">'
         '<head><meta http-equiv=Content-Type content="text/html; charset=utf-8"><meta name=Generator '
         'content="Microsoft Word 15 (filtered medium)"><style><!--\n/* Font Definitions */\n@font-face\n'
         '\t{font-family:"Cambria Math";\n\tpanose-1:2 4 5 3 5 4 6 3 2 4;}\n@font-face\n\t{font-family:Calibri;\n'
         '\tpanose-1:2 15 5 2 2 2 4 3 2 4;}\n/* Style Definitions */\np.MsoNormal, li.MsoNormal, div.MsoNormal\n'
         '\t{margin:0cm;\n\tmargin-bottom:.0001pt;\n\tfont-size:11.0pt;\n\tfont-family:"Calibri",sans-serif;}\n'
         '.MsoChpDefault\n\t{mso-style-type:export-only;}\n@page WordSection1\n\t{size:612.0pt 792.0pt;\n'
         '\tmargin:72.0pt 72.0pt 72.0pt 72.0pt;}\ndiv.WordSection1\n\t{page:WordSection1;}\n--></style></head>'
         '<body lang=EN-GB link=blue vlink="#954F72"><div class=WordSection1>')
    for l in own:
        h += ('<p class=MsoNormal>' + esc(l) + '</p>') if l else '<p class=MsoNormal><o:p>&nbsp;</o:p></p>'
    h += ('<p class=MsoNormal><o:p>&nbsp;</o:p></p><p class=MsoNormal>Sent from <a '
          'href="https://go.microsoft.com/fwlink/?LinkId=550986">Mail</a> for Windows</p>'
          '<p class=MsoNormal><o:p>&nbsp;</o:p></p>'
          "<div style='mso-element:para-border-div;border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'>"
          "<p class=MsoNormal style='border:none;padding:0cm'><b>From: </b><a href=\"mailto:game@adjutant.local\">"
          'adjutant</a><br><b>Sent: </b>Sunday, 1 March 2026 14:00<br><b>To: </b><a href="mailto:alice@example.org">'
          f'alice@example.org</a><br><b>Subject: </b>{esc(SUBJ)}</p></div>'
          '<p class=MsoNormal><o:p>&nbsp;</o:p></p>')
    for l in P:
        h += ('<p class=MsoNormal>' + spaces_word(l) + '</p>') if l else '<p class=MsoNormal><o:p>&nbsp;</o:p></p>'
    h += '</div></body></html>'
    boundary = '_A3D5C1B2-7E4F-4F9A-8B6C-2D1E0F3A4B5C_'
    headers = [
        'MIME-Version: 1.0',
        f'To: adjutant <{TOKEN_ADDR}>',
        'From: Alice <alice@example.org>',
        f'Subject: {RE_SUBJ}',
        'Date: Sun, 1 Mar 2026 14:44:51 +0100',
        'Importance: normal',
        'X-Priority: 3',
        f'In-Reply-To: {MID}',
        f'References: {MID}',
        'Content-Type: multipart/alternative;',
        f'\tboundary="{boundary}"',
        'Message-ID: <69a4f1c3.5d0a2b1e.7c9f.3e2a@example.org>',
    ]
    body = '\n'.join(['', f'--{boundary}', 'Content-Transfer-Encoding: base64',
                      'Content-Type: text/plain; charset="utf-8"', '', b64(text.replace('\n', '\r\n').encode('utf-8')),
                      f'--{boundary}', 'Content-Transfer-Encoding: base64',
                      'Content-Type: text/html; charset="utf-8"', '', b64(h.encode('utf-8')),
                      f'--{boundary}--', ''])
    write('windows-mail-top-base64', headers, body, '\r\n', client='Mail for Windows 10/11 (faithful copy)',
          layout='top-posted, "Sent from Mail for Windows", From/Sent/To/Subject block, original unquoted, base64',
          lines=orders, ignored=list(prose),
          comments=['The footer reads "Sent from Mail<https://go.microsoft.com/fwlink/?LinkId=550986> for Windows"',
                    'in text/plain (a person sees "Sent from Mail for Windows").'])


windows_mail()


# ======================================================== 14. automatic mails
def sieve_vacation():
    headers = [
        'Return-Path: <>',
        f'Delivered-To: {TOKEN_ADDR}',
        'Date: Sun, 01 Mar 2026 13:00:09 +0000',
        'From: Alice <alice@example.org>',
        f'To: <{TOKEN_ADDR}>',
        f'Subject: Auto: {SUBJ}',
        f'In-Reply-To: {MID}',
        f'References: {MID}',
        'Message-ID: <dovecot-sieve-1772370009-482913-0@mail.example.org>',
        'Auto-Submitted: auto-replied (vacation)',
        'X-Sieve: Pigeonhole Sieve 0.5.21',
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: 8bit',
    ]
    text = ('I am on holiday until 15 March and read no mail until then.\n\n'
            'Alice\n')
    write('vacation-sieve-autoreply', headers, text.encode('utf-8'), '\n',
          client='Dovecot Pigeonhole sieve vacation (faithful copy)', layout='automatic reply',
          automatic=True)


def exchange_ooo():
    text = ('I am out of the office until Monday, March 9, with limited access to email.\n\n'
            'For anything urgent about the game please write to carol@example.org.\n\nAlice\n')
    h = ('<html>\n<head>\n<meta http-equiv="Content-Type" content="text/html; charset=us-ascii">\n</head>\n'
         '<body>\n<div>\n<div dir="ltr">I am out of the office until Monday, March 9, with limited access to email.'
         '</div>\n<div dir="ltr"><br>\n</div>\n<div dir="ltr">For anything urgent about the game please write to '
         'carol@example.org.</div>\n<div dir="ltr"><br>\n</div>\n<div dir="ltr">Alice</div>\n</div>\n</body>\n</html>\n')
    boundary = '_000_AM9P195MB1427AB12CD34EF56AB78CD90EF12AB34AM9P195MB1427EURP_'
    headers = [
        'Return-Path: <>',
        'From: Alice Example <alice@example.org>',
        f'To: adjutant <{TOKEN_ADDR}>',
        f'Subject: Automatic reply: {SUBJ}',
        f'Thread-Topic: {SUBJ}',
        'Thread-Index: AQHcqZ0rW2Rk7bO8T0qZQv1xJ3fN7bV4pXkQAAAB',
        'Date: Sun, 1 Mar 2026 13:00:12 +0000',
        'Message-ID: <AM9P195MB1427AB12CD34EF56AB78CD90EF12AB34@AM9P195MB1427.EURP195.PROD.OUTLOOK.COM>',
        f'References: {MID}',
        f'In-Reply-To: {MID}',
        'Auto-Submitted: auto-generated',
        'X-MS-Has-Attach: ',
        'X-Auto-Response-Suppress: All',
        'X-MS-Exchange-Inbox-Rules-Loop: alice@example.org',
        'X-MS-TNEF-Correlator: ',
        'Content-Language: en-US',
        'Content-Type: multipart/alternative;',
        f'\tboundary="{boundary}"',
        'MIME-Version: 1.0',
    ]
    body = '\n'.join([f'--{boundary}', 'Content-Type: text/plain; charset="us-ascii"',
                      'Content-Transfer-Encoding: quoted-printable', '', qp(text, 'ascii'),
                      f'--{boundary}', 'Content-Type: text/html; charset="us-ascii"',
                      'Content-Transfer-Encoding: quoted-printable', '', qp(h, 'ascii'),
                      f'--{boundary}--', ''])
    write('exchange-out-of-office', headers, body, '\r\n',
          client='Exchange Online / Outlook out-of-office (faithful copy)', layout='automatic reply',
          automatic=True)


def gmail_vacation():
    text = ("Hi, I'm away skiing until 8 March and will answer when I'm back.\n\nAlice\n")
    h = ('<div dir="ltr">Hi, I&#39;m away skiing until 8 March and will answer when I&#39;m back.'
         '<div><br></div><div>Alice</div></div>\n')
    boundary = '00000000000071b2e40625c1c9aa'
    headers = [
        'Return-Path: <alice@example.org>',
        'MIME-Version: 1.0',
        'From: Alice Example <alice@example.org>',
        'Date: Sun, 1 Mar 2026 14:00:14 +0100',
        'Message-ID: <CAF7h2kr0vacationResponderQw3Ez5Rt7Yu9Io1Pa@mail.gmail.com>',
        f'Subject: Re: {SUBJ}',
        f'To: adjutant <{TOKEN_ADDR}>',
        f'In-Reply-To: {MID}',
        f'References: {MID}',
        'Auto-Submitted: auto-replied',
        'Precedence: bulk',
        f'Content-Type: multipart/alternative; boundary="{boundary}"',
    ]
    body = '\n'.join([f'--{boundary}', 'Content-Type: text/plain; charset="UTF-8"', '', text,
                      f'--{boundary}', 'Content-Type: text/html; charset="UTF-8"', '', h,
                      f'--{boundary}--', ''])
    write('gmail-vacation', headers, body, '\n', client='Gmail vacation responder (faithful copy)',
          layout='automatic reply', automatic=True)


def dsn():
    boundary = '4QbXyZ1aBcz9sT.1772370007/mx.example.org'
    orig = RAW_PROMPT.replace(b'\r\n', b'\n')
    headers = [
        'Return-Path: <>',
        f'Delivered-To: {TOKEN_ADDR}',
        'Date: Sun,  1 Mar 2026 13:00:07 +0000 (UTC)',
        'From: MAILER-DAEMON@mx.example.org (Mail Delivery System)',
        'Subject: Undelivered Mail Returned to Sender',
        f'To: {TOKEN_ADDR}',
        'Auto-Submitted: auto-replied',
        'MIME-Version: 1.0',
        'Content-Type: multipart/report; report-type=delivery-status;',
        f'\tboundary="{boundary}"',
        'Content-Transfer-Encoding: 8bit',
        'Message-Id: <20260301130007.4QbXyZ1aBcz9sT@mx.example.org>',
    ]
    notice = '''This is the mail system at host mx.example.org.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients. It's attached below.

For further assistance, please send mail to postmaster.

If you do so, please include this problem report. You can
delete your own text from the attached returned message.

                   The mail system

<alice@example.org>: host mailstore.example.org[192.0.2.25] said: 552 5.2.2
    <alice@example.org>: Mailbox full (in reply to RCPT TO command)
'''
    status = '''Reporting-MTA: dns; mx.example.org
X-Postfix-Queue-ID: 4QbXyZ1aBcz9sT
X-Postfix-Sender: rfc822; game@adjutant.local
Arrival-Date: Sun,  1 Mar 2026 13:00:05 +0000 (UTC)

Final-Recipient: rfc822; alice@example.org
Original-Recipient: rfc822;alice@example.org
Action: failed
Status: 5.2.2
Remote-MTA: dns; mailstore.example.org
Diagnostic-Code: smtp; 552 5.2.2 <alice@example.org>: Mailbox full
'''
    body = ('This is a MIME-encapsulated message.\n\n'
            f'--{boundary}\nContent-Description: Notification\nContent-Type: text/plain; charset=utf-8\n'
            'Content-Transfer-Encoding: 8bit\n\n' + notice + '\n'
            f'--{boundary}\nContent-Description: Delivery report\nContent-Type: message/delivery-status\n\n'
            + status + '\n'
            f'--{boundary}\nContent-Description: Undelivered Message\nContent-Type: message/rfc822\n'
            'Content-Transfer-Encoding: 8bit\n\n').encode('utf-8') + orig + f'\n--{boundary}--\n'.encode()
    write('dsn-bounce', headers, body, '\n', client='Postfix DSN bounce (faithful copy)',
          layout='automatic: delivery status notification, multipart/report with the whole prompt inside',
          automatic=True,
          comments=['The returned prompt inside holds order-looking syntax lines: none may be read.'])


sieve_vacation()
exchange_ooo()
gmail_vacation()
dsn()

print(f'{len(WRITTEN)} faithful copies written to {OUT}')
