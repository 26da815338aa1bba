//! Renderers: a `View` to ASCII text (mail bodies, `show`) and to SVG (the
//! attached map). They never see game state, only what a viewer may see.

pub mod ascii;
pub mod svg;
