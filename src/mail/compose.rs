//! Outbound messages built with lettre's message builder: RFC 5322 headers,
//! a UTF-8 text/plain body, attachments (the map as PNG and SVG).

use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::{Attachment, Body, Mailbox, MultiPart, SinglePart};
use std::time::SystemTime;

/// Everything an outbound message says.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// Without angle brackets: `<id>` is added on the wire.
    pub message_id: String,
    pub from: String,
    pub from_name: String,
    pub to: String,
    pub reply_to: Option<String>,
    pub subject: String,
    pub in_reply_to: Option<String>,
    pub body: String,
    pub attachments: Vec<Attached>,
    /// Extra headers such as `X-Adjutant-Game`.
    pub headers: Vec<(String, String)>,
    pub date: SystemTime,
}

/// A file attached to a message.
#[derive(Debug, Clone)]
pub struct Attached {
    pub name: String,
    /// `image/png`, `image/svg+xml`.
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot compose mail to {to}: bad address {addr:?}")]
    Address { to: String, addr: String },
    #[error("cannot compose mail to {to}: {message}")]
    Build { to: String, message: String },
}

/// The message as bytes, ready for a Maildir or SMTP.
pub fn render(o: &Outgoing) -> Result<Vec<u8>, Error> {
    let addr =
        |a: &str| a.parse::<lettre::Address>().map_err(|_| Error::Address { to: o.to.clone(), addr: a.to_string() });
    let mut b = lettre::Message::builder()
        .from(Mailbox::new(Some(o.from_name.clone()), addr(&o.from)?))
        .to(Mailbox::new(None, addr(&o.to)?))
        .subject(o.subject.clone())
        .message_id(Some(format!("<{}>", o.message_id)))
        .date(o.date);
    if let Some(r) = &o.reply_to {
        b = b.reply_to(Mailbox::new(Some(o.from_name.clone()), addr(r)?));
    }
    if let Some(irt) = &o.in_reply_to {
        let id = if irt.starts_with('<') { irt.clone() } else { format!("<{irt}>") };
        b = b.in_reply_to(id.clone()).references(id);
    }
    // Every message we send is automatic: loop safety for the other side.
    let mut headers = vec![("Auto-Submitted".to_string(), "auto-generated".to_string())];
    headers.extend(o.headers.iter().cloned());
    for (k, v) in headers {
        let name = HeaderName::new_from_ascii(k.clone())
            .map_err(|_| Error::Build { to: o.to.clone(), message: format!("bad header name {k}") })?;
        b = b.raw_header(HeaderValue::new(name, v));
    }
    let text = SinglePart::builder().header(ContentType::TEXT_PLAIN).body(o.body.clone());
    let msg = if o.attachments.is_empty() {
        b.singlepart(text)
    } else {
        let mut mp = MultiPart::mixed().singlepart(text);
        for a in &o.attachments {
            let ct = ContentType::parse(a.content_type)
                .map_err(|_| Error::Build { to: o.to.clone(), message: format!("bad type {}", a.content_type) })?;
            mp = mp.singlepart(Attachment::new(a.name.clone()).body(Body::new(a.body.clone()), ct));
        }
        b.multipart(mp)
    }
    .map_err(|e| Error::Build { to: o.to.clone(), message: e.to_string() })?;
    Ok(msg.formatted())
}
