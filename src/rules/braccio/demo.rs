//! `adjutant demo braccio`: a scripted opening at Sant'Egidio through the
//! desk.

use super::*;
use crate::engine::DemoMail;

pub fn mails(_s: &State, _pass: usize) -> Option<Vec<DemoMail>> {
    None
}
