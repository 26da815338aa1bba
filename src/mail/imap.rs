//! The IMAP inbox: connect (TLS, STARTTLS, or plain on loopback when the
//! config allows it), log in, list what waits in the folder, fetch it in
//! batches without marking it read, and move handled messages to the
//! processed folder (MOVE, or COPY + \Deleted + EXPUNGE where MOVE is not
//! offered). Knows nothing of games: the desk decides what a message is.

use crate::config::{plain_allowed, secret, ImapConfig, Security};
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The socket an IMAP session runs over: plain (loopback only) or TLS.
pub enum Stream {
    Plain(TcpStream),
    Tls(Box<crate::mail::tls::TlsStream>),
}

/// The connection, and what lets a stop request end an IDLE at once: while
/// the IDLE handle has set a read timeout, reads wait in one-second slices
/// and give up (as a timeout) when `stop` is set or the timeout has passed.
/// (The `imap` crate gives no other way to leave an IDLE from outside.)
pub struct Conn {
    stream: Stream,
    stop: Option<Arc<AtomicBool>>,
    idle_until: Option<Instant>,
}

/// The socket read timeout outside IDLE (a server silent this long is gone).
const READ_TIMEOUT: Duration = Duration::from_secs(120);

/// How often an IDLE looks at the stop flag: a stop is obeyed well within
/// a second, at the cost of a few empty wake-ups a second.
const IDLE_SLICE: Duration = Duration::from_millis(250);

impl Conn {
    fn socket(&self) -> &TcpStream {
        match &self.stream {
            Stream::Plain(s) => s,
            Stream::Tls(s) => s.get_ref(),
        }
    }
}

impl Read for Conn {
    fn read(&mut self, b: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let r = match &mut self.stream {
                Stream::Plain(s) => s.read(b),
                Stream::Tls(s) => s.read(b),
            };
            match (&r, self.idle_until) {
                (Err(e), Some(until))
                    if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) =>
                {
                    let stopping = self.stop.as_ref().map(|s| s.load(Ordering::SeqCst)).unwrap_or(false);
                    if stopping || Instant::now() >= until {
                        return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "idle over"));
                    }
                }
                _ => return r,
            }
        }
    }
}

impl Write for Conn {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        match &mut self.stream {
            Stream::Plain(s) => s.write(b),
            Stream::Tls(s) => s.write(b),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.stream {
            Stream::Plain(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}

impl imap::extensions::idle::SetReadTimeout for Conn {
    /// Called by the IDLE handle only: `Some` as an IDLE starts, `None`
    /// when it ends.
    fn set_read_timeout(&mut self, t: Option<Duration>) -> imap::Result<()> {
        self.idle_until = t.map(|t| Instant::now() + t);
        let slice = if t.is_some() { IDLE_SLICE } else { READ_TIMEOUT };
        self.socket().set_read_timeout(Some(slice)).map_err(imap::Error::Io)
    }
}

pub type Session = imap::Session<Conn>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot connect to IMAP server {host}:{port}: {message}")]
    Connect { host: String, port: u16, message: String },
    #[error("IMAP server refused the login of {user}: {message}")]
    Login { user: String, message: String },
    #[error("IMAP error: {0}")]
    Imap(#[from] imap::Error),
    #[error("{0}")]
    Config(String),
}

fn tcp(cfg: &ImapConfig) -> Result<TcpStream, Error> {
    let cerr = |message: String| Error::Connect { host: cfg.host.clone(), port: cfg.port, message };
    let addr = (cfg.host.as_str(), cfg.port)
        .to_socket_addrs()
        .map_err(|e| cerr(e.to_string()))?
        .next()
        .ok_or_else(|| cerr("no address".into()))?;
    let s = TcpStream::connect_timeout(&addr, Duration::from_secs(15)).map_err(|e| cerr(e.to_string()))?;
    s.set_read_timeout(Some(READ_TIMEOUT)).map_err(|e| cerr(e.to_string()))?;
    s.set_write_timeout(Some(Duration::from_secs(60))).map_err(|e| cerr(e.to_string()))?;
    Ok(s)
}

/// Read one CRLF-terminated line byte by byte (no buffering, so the socket
/// can be handed to TLS afterwards with nothing left behind).
fn line(s: &mut TcpStream) -> std::io::Result<String> {
    let mut v = Vec::new();
    let mut b = [0u8; 1];
    while !v.ends_with(b"\r\n") {
        if s.read(&mut b)? == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "connection closed"));
        }
        v.push(b[0]);
        if v.len() > 64 * 1024 {
            return Err(std::io::Error::other("line too long"));
        }
    }
    Ok(String::from_utf8_lossy(&v).to_string())
}

/// Connect and log in.
pub fn connect(cfg: &ImapConfig) -> Result<Session, Error> {
    connect_until(cfg, None)
}

/// Connect and log in; an IDLE on this session ends within a second of
/// `stop` being set.
pub fn connect_until(cfg: &ImapConfig, stop: Option<Arc<AtomicBool>>) -> Result<Session, Error> {
    let conn = |stream: Stream| Conn { stream, stop: stop.clone(), idle_until: None };
    let cerr = |message: String| Error::Connect { host: cfg.host.clone(), port: cfg.port, message };
    let password = secret(&cfg.password_env, &cfg.password_file, "[inbound]").map_err(Error::Config)?;
    let mut sock = tcp(cfg)?;
    let client: imap::Client<Conn> = match cfg.security {
        Security::Tls => {
            let tls = crate::mail::tls::wrap(sock, &cfg.host, cfg.ca_file.as_deref()).map_err(cerr)?;
            let mut c = imap::Client::new(conn(Stream::Tls(Box::new(tls))));
            c.read_greeting()?;
            c
        }
        Security::Starttls => {
            let greeting = line(&mut sock).map_err(|e| cerr(e.to_string()))?;
            if !greeting.starts_with("* OK") {
                return Err(cerr(format!("unexpected greeting {greeting:?}")));
            }
            sock.write_all(b"s0 STARTTLS\r\n").map_err(|e| cerr(e.to_string()))?;
            loop {
                let l = line(&mut sock).map_err(|e| cerr(e.to_string()))?;
                if l.starts_with("s0 OK") {
                    break;
                }
                if l.starts_with("s0 ") {
                    return Err(cerr(format!("STARTTLS refused: {}", l.trim())));
                }
            }
            let tls = crate::mail::tls::wrap(sock, &cfg.host, cfg.ca_file.as_deref()).map_err(cerr)?;
            imap::Client::new(conn(Stream::Tls(Box::new(tls))))
        }
        Security::Plain => {
            if !plain_allowed(&cfg.host, cfg.allow_plain) {
                return Err(Error::Config(format!(
                    "[inbound] security = \"plain\" is refused for {}: only a loopback host with allow_plain = true may go unencrypted",
                    cfg.host
                )));
            }
            let mut c = imap::Client::new(conn(Stream::Plain(sock)));
            c.read_greeting()?;
            c
        }
    };
    client.login(&cfg.user, &password).map_err(|(e, _)| Error::Login { user: cfg.user.clone(), message: e.to_string() })
}

/// What waits in the folder: its UIDVALIDITY and every UID, ascending.
pub fn pending(s: &mut Session, folder: &str) -> Result<(u32, Vec<u32>), Error> {
    let mb = s.select(folder)?;
    // Messages another client flagged \Deleted are not ours to take.
    let mut uids: Vec<u32> = s.uid_search("UNDELETED")?.into_iter().collect();
    uids.sort_unstable();
    Ok((mb.uid_validity.unwrap_or(0), uids))
}

/// Fetch whole messages without setting \Seen: (uid, raw bytes).
pub fn fetch(s: &mut Session, uids: &[u32]) -> Result<Vec<(u32, Vec<u8>)>, Error> {
    if uids.is_empty() {
        return Ok(Vec::new());
    }
    let set = uids.iter().map(|u| u.to_string()).collect::<Vec<_>>().join(",");
    let fetches = s.uid_fetch(&set, "(UID BODY.PEEK[])")?;
    let mut v: Vec<(u32, Vec<u8>)> = fetches.iter().filter_map(|f| Some((f.uid?, f.body()?.to_vec()))).collect();
    v.sort_by_key(|x| x.0);
    Ok(v)
}

/// Make sure the processed folder exists.
pub fn ensure_folder(s: &mut Session, folder: &str) -> Result<(), Error> {
    let exists = s.list(None, Some(folder))?.iter().any(|n| n.name() == folder);
    if !exists {
        s.create(folder)?;
    }
    Ok(())
}

/// Move handled messages out of the folder, never deleting one that was not
/// copied first.
pub fn move_to(s: &mut Session, uids: &[u32], folder: &str) -> Result<(), Error> {
    if uids.is_empty() {
        return Ok(());
    }
    let set = uids.iter().map(|u| u.to_string()).collect::<Vec<_>>().join(",");
    let caps = s.capabilities()?;
    if caps.has_str("MOVE") {
        s.uid_mv(&set, folder)?;
    } else {
        s.uid_copy(&set, folder)?;
        s.uid_store(&set, "+FLAGS.SILENT (\\Deleted)")?;
        // Without UIDPLUS an EXPUNGE would remove every \Deleted message
        // in the folder, ours or not: leave them flagged (copied already,
        // and skipped from now on).
        if caps.has_str("UIDPLUS") {
            s.uid_expunge(&set)?;
        }
    }
    Ok(())
}

/// Wait for new mail: IDLE for up to `secs` when offered, else sleep.
/// Returns early (false) when `stop` says so, checked every second of a
/// sleep.
pub fn wait(s: &mut Session, use_idle: bool, secs: u64, stop: &dyn Fn() -> bool) -> Result<(), Error> {
    let idle = use_idle && s.capabilities()?.has_str("IDLE");
    if idle {
        let mut h = s.idle();
        h.timeout(Duration::from_secs(secs.max(1)));
        h.keepalive(false);
        h.wait_while(imap::extensions::idle::stop_on_any)?;
        return Ok(());
    }
    for _ in 0..secs {
        if stop() {
            break;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    s.noop()?;
    Ok(())
}
