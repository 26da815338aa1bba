//! Outbound transports: SMTP (lettre, TLS or STARTTLS, AUTH) and a local
//! sendmail. A send is Ok, a temporary failure of the transport (retry
//! later), a temporary failure about its recipient (retry that recipient
//! later, send the others), or a permanent one (a 5xx about the message or
//! its recipient: give up and tell the moderator; a refused log-in is the
//! transport, retried).

use crate::config::{plain_allowed, secret, Security, SmtpConfig};
use lettre::address::Envelope;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{SmtpTransport, Transport};
use std::time::Duration;

#[derive(Debug)]
pub enum Failure {
    /// The transport failed for now (the connection, TLS, the log-in, a
    /// 421 or 454): nothing can go until it works again.
    Temporary(String),
    /// The server answered with a 4xx about this mail or its recipient (a
    /// 450 mailbox busy, a 451 greylisting, a 452 full mailbox): this
    /// recipient's mail waits, the others' can go.
    Recipient(String),
    Permanent(String),
}

/// A transient SMTP answer about the server as a whole, not one mail: the
/// service closing (421), TLS or the log-in unavailable for now (454).
fn about_the_server(code: &str) -> bool {
    ["421", "454"].contains(&code)
}

pub enum Sender {
    Smtp(Box<SmtpTransport>),
    Sendmail(lettre::SendmailTransport),
}

pub fn smtp(cfg: &SmtpConfig) -> Result<Sender, String> {
    let tls = |host: &str| -> Result<TlsParameters, String> {
        let mut b = TlsParameters::builder(host.to_string());
        if let Some(f) = &cfg.ca_file {
            let pem = std::fs::read(f).map_err(|e| format!("cannot read CA file {f}: {e}"))?;
            b = b.add_root_certificate(Certificate::from_pem(&pem).map_err(|e| format!("CA file {f}: {e}"))?);
        }
        b.build_rustls().map_err(|e| e.to_string())
    };
    let mut t = SmtpTransport::builder_dangerous(&cfg.host)
        .port(cfg.port)
        .timeout(Some(Duration::from_secs(cfg.timeout_seconds)));
    t = match cfg.security {
        Security::Tls => t.tls(Tls::Wrapper(tls(&cfg.host)?)),
        Security::Starttls => t.tls(Tls::Required(tls(&cfg.host)?)),
        Security::Plain => {
            if !plain_allowed(&cfg.host, cfg.allow_plain) {
                return Err(format!(
                    "[outbound] security = \"plain\" is refused for {}: only a loopback host with allow_plain = true may go unencrypted",
                    cfg.host
                ));
            }
            t.tls(Tls::None)
        }
    };
    if let Some(u) = &cfg.user {
        let p = secret(&cfg.password_env, &cfg.password_file, "[outbound]")?;
        t = t.credentials(Credentials::new(u.clone(), p));
    }
    Ok(Sender::Smtp(Box::new(t.build())))
}

pub fn sendmail(command: &str) -> Sender {
    Sender::Sendmail(lettre::SendmailTransport::new_with_command(command))
}

/// A permanent SMTP answer about the account, not the message: the log-in
/// refused or required, encryption required (530, 534, 535, 538). Fixed by
/// the moderator, every reply then goes; any other 5xx (a refused address,
/// a domain that takes no mail, a rejected message) is about that one mail.
fn about_the_account(code: &str) -> bool {
    ["530", "534", "535", "538"].contains(&code)
}

impl Sender {
    pub fn send(&self, from: &str, to: &str, raw: &[u8]) -> Result<(), Failure> {
        let env = Envelope::new(
            Some(from.parse().map_err(|e| Failure::Permanent(format!("bad sender {from}: {e}")))?),
            vec![to.parse().map_err(|e| Failure::Permanent(format!("bad recipient {to}: {e}")))?],
        )
        .map_err(|e| Failure::Permanent(e.to_string()))?;
        match self {
            Sender::Smtp(t) => t.send_raw(&env, raw).map(|_| ()).map_err(|e| {
                let code = e.status().map(|c| c.to_string()).unwrap_or_default();
                if e.is_permanent() && !about_the_account(&code) {
                    Failure::Permanent(e.to_string())
                } else if e.is_transient() && !code.is_empty() && !about_the_server(&code) {
                    Failure::Recipient(e.to_string())
                } else {
                    // Authentication, TLS, the connection, 4xx: the
                    // transport, not this mail. Fixed, it goes out.
                    Failure::Temporary(e.to_string())
                }
            }),
            Sender::Sendmail(t) => t.send_raw(&env, raw).map(|_| ()).map_err(|e| Failure::Temporary(e.to_string())),
        }
    }

    /// Connect and say EHLO (and AUTH), without sending: `run --check`.
    pub fn check(&self) -> Result<(), String> {
        match self {
            Sender::Smtp(t) => match t.test_connection() {
                Ok(true) => Ok(()),
                Ok(false) => Err("the server did not answer as an SMTP server".into()),
                Err(e) => Err(e.to_string()),
            },
            Sender::Sendmail(_) => Ok(()),
        }
    }
}
