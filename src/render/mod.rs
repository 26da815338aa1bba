//! Renderers: a `View` to ASCII text (mail bodies, `show`) and to SVG (the
//! attached map), and that SVG to PNG. They never see game state, only what
//! a viewer may see.

pub mod ascii;
pub mod png;
pub mod svg;
