//! TLS client settings shared by IMAP and SMTP: rustls with the ring
//! provider, the Mozilla roots, and an optional extra CA from a PEM file
//! (a server with a private CA, such as the test mail stack).

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use std::net::TcpStream;
use std::sync::Arc;

pub fn config(ca_file: Option<&str>) -> Result<Arc<rustls::ClientConfig>, String> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(f) = ca_file {
        let certs: Vec<CertificateDer> = CertificateDer::pem_file_iter(f)
            .map_err(|e| format!("cannot read CA file {f}: {e}"))?
            .collect::<Result<_, _>>()
            .map_err(|e| format!("cannot read CA file {f}: {e}"))?;
        if certs.is_empty() {
            return Err(format!("CA file {f} holds no certificate"));
        }
        for c in certs {
            roots.add(c).map_err(|e| format!("CA file {f}: {e}"))?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let cfg = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(cfg))
}

pub type TlsStream = rustls::StreamOwned<rustls::ClientConnection, TcpStream>;

/// Wrap a connected socket in TLS for `host`.
pub fn wrap(tcp: TcpStream, host: &str, ca_file: Option<&str>) -> Result<TlsStream, String> {
    let name = ServerName::try_from(host.to_string()).map_err(|e| format!("{host} is not a valid server name: {e}"))?;
    let conn = rustls::ClientConnection::new(config(ca_file)?, name).map_err(|e| e.to_string())?;
    Ok(rustls::StreamOwned::new(conn, tcp))
}

/// A TLS error in words a moderator can act on: rustls's "received corrupt
/// message of type InvalidContentType" means the server spoke plain text
/// where TLS was expected (or the other way round).
pub fn explain(error: &str) -> String {
    if error.contains("InvalidContentType") || error.contains("corrupt message") {
        format!(
            "{error} — the server did not answer with TLS on this port: use security = \"starttls\" for ports 143 and 587, \"tls\" for 993 and 465"
        )
    } else {
        error.to_string()
    }
}
