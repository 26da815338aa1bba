//! The process's drawing threads: a map's PNG drawn beside the thread that
//! handles the mail, one thread a core, for the life of the process.
//!
//! Drawing is most of what a step costs when maps are mailed, and the
//! pictures of a step (the public view, each side's) are independent.
//! The threads live as long as the process, not a batch: threads started
//! and ended for each batch left their allocator's memory behind them
//! (measured over a backlog of 1,500 games with 1,000 kept warm: a peak
//! of 104-112 MB against 81-90 MB), where threads that stay reuse it.

use std::sync::{mpsc, Arc, Mutex, OnceLock};

/// One picture to draw: its SVG, where its answer goes, and its place.
type Job = (String, mpsc::Sender<(usize, Result<Vec<u8>, String>)>, usize);

/// Where jobs go; None if no thread could be started (each picture is
/// then drawn in the caller's thread).
fn pool() -> Option<&'static Mutex<mpsc::Sender<Job>>> {
    static POOL: OnceLock<Option<Mutex<mpsc::Sender<Job>>>> = OnceLock::new();
    POOL.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut started = 0;
        for _ in 0..cores {
            let rx = Arc::clone(&rx);
            let spawned = std::thread::Builder::new().name("draw".into()).spawn(move || loop {
                let job = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                let Ok((svg, back, i)) = job else { return };
                let _ = back.send((i, png(&svg)));
            });
            started += usize::from(spawned.is_ok());
        }
        (started > 0).then(|| Mutex::new(tx))
    })
    .as_ref()
}

/// A PNG of one SVG; a picture resvg panics on is an error like another.
fn png(svg: &str) -> Result<Vec<u8>, String> {
    std::panic::catch_unwind(|| crate::render::png::from_svg(svg))
        .unwrap_or_else(|_| Err("drawing the map panicked".to_string()))
}

/// The PNG of each SVG, in order, drawn on the drawing threads (in the
/// caller's thread for one picture alone, or if there are none).
pub(crate) fn draw(svgs: &[&str]) -> Vec<Result<Vec<u8>, String>> {
    let Some(jobs) = pool().filter(|_| svgs.len() > 1) else {
        return svgs.iter().map(|s| png(s)).collect();
    };
    let (back, answers) = mpsc::channel();
    let mut out: Vec<Option<Result<Vec<u8>, String>>> = vec![None; svgs.len()];
    {
        let jobs = jobs.lock().unwrap_or_else(|e| e.into_inner());
        for (i, svg) in svgs.iter().enumerate() {
            if let Err(mpsc::SendError((svg, _, i))) = jobs.send((svg.to_string(), back.clone(), i)) {
                out[i] = Some(png(&svg));
            }
        }
    }
    drop(back);
    for (i, png) in answers {
        out[i] = Some(png);
    }
    // A job no thread answered (its thread gone) is drawn here.
    out.into_iter().zip(svgs).map(|(p, svg)| p.unwrap_or_else(|| png(svg))).collect()
}

#[cfg(test)]
mod tests {
    /// Pictures come back in the order given, an unreadable one as an
    /// error, on the threads and alone.
    #[test]
    fn pictures_come_back_in_order() {
        let svg = |w: u32| {
            format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"20\"><rect width=\"{w}\" height=\"20\" fill=\"#fff\"/></svg>")
        };
        let (a, b) = (svg(30), svg(70));
        let out = super::draw(&[&a, "not svg", &b]);
        assert_eq!(out.len(), 3);
        assert!(out[1].is_err());
        let width = |p: &Vec<u8>| u32::from_be_bytes([p[16], p[17], p[18], p[19]]);
        assert_eq!(width(out[0].as_ref().unwrap()), 30);
        assert_eq!(width(out[2].as_ref().unwrap()), 70);
        assert_eq!(width(super::draw(&[&b])[0].as_ref().unwrap()), 70);
    }
}
