//! The long run: jewels on the field after every column, as a histogram,
//! its mean and maximum, and a log10 plot written as SVG by hand.
//!
//! The run is one seeded stream of games: when a game ends, the next one
//! starts from an empty well with the next seed, and the count goes on
//! (the article's run never ended; ours reports how many games did).

use std::fmt::Write as _;

use super::board::VISIBLE_CELLS;
use super::bot::Bot;
use super::game::Game;
use crate::common::SplitMix64;

/// Histogram bins: 0 to 90 jewels.
pub const BINS: usize = 91;

/// Result of a long run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    /// `counts[n]`: columns after which `n` jewels were on the field.
    pub counts: Vec<u64>,
    /// Games that ended during the run.
    pub game_overs: u64,
}

impl Histogram {
    /// Columns recorded.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Mean jewel count.
    pub fn mean(&self) -> f64 {
        let t = self.total();
        if t == 0 {
            return 0.0;
        }
        self.counts
            .iter()
            .enumerate()
            .map(|(n, &c)| n as f64 * c as f64)
            .sum::<f64>()
            / t as f64
    }

    /// Largest jewel count seen.
    pub fn max(&self) -> usize {
        self.counts.iter().rposition(|&c| c > 0).unwrap_or(0)
    }

    /// Probability of `n` jewels.
    pub fn p(&self, n: usize) -> f64 {
        self.counts[n] as f64 / self.total().max(1) as f64
    }
}

/// Plays `columns` columns with `bot`, recording the jewel count after
/// each one. `progress` is called every 100,000 columns.
pub fn long_run(
    bot: &Bot,
    seed: u64,
    columns: u64,
    wild_every: u64,
    mut progress: impl FnMut(u64),
) -> Histogram {
    let mut seeds = SplitMix64::new(seed);
    let mut h = Histogram {
        counts: vec![0; BINS],
        game_overs: 0,
    };
    let mut g = Game::new(seeds.next_u64(), wild_every);
    for i in 0..columns {
        if g.step(bot).is_none() || g.over {
            h.game_overs += 1;
            // The ending column counts as a full field.
            h.counts[VISIBLE_CELLS] += 1;
            g = Game::new(seeds.next_u64(), wild_every);
        } else {
            h.counts[g.board.jewels() as usize] += 1;
        }
        if (i + 1) % 100_000 == 0 {
            progress(i + 1);
        }
    }
    h
}

/// An SVG line chart of log10(probability) against the jewel count.
pub fn svg_log_plot(h: &Histogram, title: &str) -> String {
    let (w, ht) = (760.0, 480.0);
    let (left, right, top, bottom) = (70.0, 20.0, 40.0, 50.0);
    let xmax = (h.max().max(10) + 2) as f64;
    let points: Vec<(f64, f64)> = (0..BINS)
        .filter(|&n| h.counts[n] > 0)
        .map(|n| (n as f64, h.p(n).log10()))
        .collect();
    let ymin = points
        .iter()
        .map(|p| p.1)
        .fold(0.0f64, f64::min)
        .floor()
        .min(-1.0);
    let px = |x: f64| left + (w - left - right) * x / xmax;
    let py = |y: f64| top + (ht - top - bottom) * (y / ymin);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{ht}" viewBox="0 0 {w} {ht}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{ht}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        w / 2.0,
        xml_escape(title)
    );
    // Grid and y ticks (whole powers of ten).
    let mut y = 0.0;
    while y >= ymin {
        let yy = py(y);
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{y}</text>"##,
            w - right,
            left - 6.0,
            yy + 4.0
        );
        y -= 1.0;
    }
    // X ticks every 5 jewels.
    let mut x = 0.0;
    while x <= xmax {
        let xx = px(x);
        let _ = writeln!(
            s,
            r##"<line x1="{xx:.1}" y1="{top}" x2="{xx:.1}" y2="{:.1}" stroke="#eee"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle">{x}</text>"##,
            ht - bottom,
            ht - bottom + 16.0
        );
        x += 5.0;
    }
    let _ = writeln!(
        s,
        r#"<rect x="{left}" y="{top}" width="{:.1}" height="{:.1}" fill="none" stroke="black"/>"#,
        w - left - right,
        ht - top - bottom
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">jewels on the field after a column</text>"#,
        left + (w - left - right) / 2.0,
        ht - 12.0
    );
    let _ = writeln!(
        s,
        r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">log10(probability)</text>"#,
        top + (ht - top - bottom) / 2.0,
        top + (ht - top - bottom) / 2.0
    );
    let poly: Vec<String> = points
        .iter()
        .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
        .collect();
    let _ = writeln!(
        s,
        r##"<polyline points="{}" fill="none" stroke="#1f5fbf" stroke-width="1.5"/>"##,
        poly.join(" ")
    );
    for &(x, y) in &points {
        let _ = writeln!(
            s,
            r##"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="#1f5fbf"/>"##,
            px(x),
            py(y)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn xml_escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
