//! Fuzzes the weights parser ([`Weights::parse`]) with arbitrary text, and
//! the two ways weights are written back with arbitrary finite floats.
//!
//! Checks, beyond "no panic":
//! - an error message is one line (the parser's promise);
//! - parsed weights, and weights made from the input's bits, written as
//!   TOML ([`Weights::to_toml`]) parse back bit for bit (so `-0.0` stays
//!   `-0.0`);
//! - the same weights, as the heuristic's [`Identity`] written to JSON and
//!   read back (what a run's manifest does, and what a resume compares),
//!   give the same identity and the same floats bit for bit.
#![no_main]

use std::path::Path;

use hatetris::evaluate::{Evaluator, Identity};
use hatetris::heuristic::{Knewjade, Weights};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        match Weights::parse(text, Path::new("fuzz.toml")) {
            Ok(w) => check(&w),
            Err(e) => assert!(!e.to_string().contains('\n'), "{e:?}"),
        }
    }
    if let Some(w) = weights_from_bits(data) {
        check(&w);
    }
});

/// The weights' twelve floats, in a fixed order.
fn floats(w: &Weights) -> [f64; 12] {
    let e = &w.erasability;
    [
        w.holes,
        w.enclosed_holes,
        w.lines_with_enclosed_holes,
        w.surface_height,
        w.score,
        e[0],
        e[1],
        e[2],
        e[3],
        e[4],
        e[5],
        e[6],
    ]
}

fn bits(w: &Weights) -> [u64; 12] {
    floats(w).map(f64::to_bits)
}

fn check(w: &Weights) {
    let toml = w.to_toml();
    let back = Weights::parse(&toml, Path::new("back.toml"))
        .unwrap_or_else(|e| panic!("to_toml output does not parse: {e}\n{toml}"));
    assert_eq!(bits(&back), bits(w), "TOML round trip\n{toml}");

    let id = Knewjade::new(*w, None).identity();
    let json = serde_json::to_string(&id).expect("an identity serialises");
    let read: Identity = serde_json::from_str(&json).expect("the JSON reads back");
    let floats_read = json_floats(&read);
    let sent = floats(w);
    for (k, (a, b)) in sent.iter().zip(floats_read).enumerate() {
        assert!(
            a.to_bits() == b.to_bits(),
            "JSON round trip of weight {k}: wrote {a:e}, read {b:e}\n{json}"
        );
    }
    assert!(read == id, "the read identity differs: {json}");
}

/// The weights' floats as read back from an identity's JSON.
fn json_floats(id: &Identity) -> [f64; 12] {
    let w = id.get("weights").expect("the identity holds the weights");
    let f = |key: &str| w[key].as_f64().unwrap_or_else(|| panic!("{key}: {w}"));
    let e = w["erasability"]
        .as_array()
        .unwrap_or_else(|| panic!("erasability: {w}"));
    assert_eq!(e.len(), 7, "{w}");
    let e: Vec<f64> = e.iter().map(|v| v.as_f64().expect("a number")).collect();
    [
        f("holes"),
        f("enclosed_holes"),
        f("lines_with_enclosed_holes"),
        f("surface_height"),
        f("score"),
        e[0],
        e[1],
        e[2],
        e[3],
        e[4],
        e[5],
        e[6],
    ]
}

/// Twelve floats from the input's bits (8 bytes each, cycling through the
/// input), if they are all finite (the parser takes only finite numbers).
fn weights_from_bits(data: &[u8]) -> Option<Weights> {
    if data.is_empty() {
        return None;
    }
    let mut it = data.iter().copied().cycle();
    let mut next = || {
        let mut b = [0u8; 8];
        b.iter_mut().for_each(|x| *x = it.next().expect("cycles"));
        f64::from_le_bytes(b)
    };
    let mut f = [0.0f64; 12];
    f.iter_mut().for_each(|x| *x = next());
    if !f.iter().all(|x| x.is_finite()) {
        return None;
    }
    Some(Weights {
        holes: f[0],
        enclosed_holes: f[1],
        lines_with_enclosed_holes: f[2],
        surface_height: f[3],
        score: f[4],
        erasability: [f[5], f[6], f[7], f[8], f[9], f[10], f[11]],
    })
}
