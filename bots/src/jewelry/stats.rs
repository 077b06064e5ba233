//! The long run: jewels on the field after every column, as a histogram,
//! its mean and maximum, the article's two fits, and a log10 plot written
//! as SVG by hand.
//!
//! # The fits
//!
//! The article fits the probability curve twice, with Excel's Solver: a
//! Gaussian `a · exp(−(x − b)² / (2c²))` (its centre: 10.973), and a
//! quadratic in log10 that it extrapolates to a full field (x = 78 gives
//! 10^−16.4244, x = 54 gives 10^−9.78905). It shows the formulas only as
//! images, so how they were fitted is our assumption:
//!
//! - [`fit_gaussian`]: least squares on the probabilities themselves (what
//!   the Solver minimises by default), over every bin from 0 to the
//!   maximum. Started from the closed-form fit of a parabola to ln p
//!   weighted by p² (Guo's method), then refined by damped Gauss-Newton
//!   (Levenberg-Marquardt) until the squared error stops falling.
//! - [`fit_log_quadratic`]: least squares of log10 p on `q0 + q1 x + q2 x²`
//!   over the non-empty bins from the mode to the maximum, every bin with
//!   the same weight (the article: "to the right of the maximum, the curve
//!   becomes nearly linear", and it is that side it extrapolates; an
//!   unweighted fit is what a spreadsheet trendline does). Tried on 100,000
//!   columns (seed 1), the three readings give at x = 54 and 78: this one
//!   −9.82 and −17.9 (the article: −9.79 and −16.42); the whole curve
//!   unweighted −15.9 and −38.3; the right side weighted by counts
//!   (inverse variance) −17.4 and −39.3. Only this reading comes near the
//!   article's numbers, so it is the one kept.
//!
//! Rejected: a least-squares crate (`levenberg-marquardt` pulls `nalgebra`);
//! both fits are 3 × 3 normal equations, solved by [`solve3`] with partial
//! pivoting, and the tests check that each fit recovers known parameters
//! from exact data.
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

/// Solves the 3 × 3 system `m · x = v` by Gaussian elimination with
/// partial pivoting; `None` when it is singular.
pub fn solve3(mut m: [[f64; 3]; 3], mut v: [f64; 3]) -> Option<[f64; 3]> {
    for col in 0..3 {
        let piv = (col..3).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[piv][col].abs() < 1e-300 {
            return None;
        }
        m.swap(col, piv);
        v.swap(col, piv);
        for r in col + 1..3 {
            let f = m[r][col] / m[col][col];
            let pivot = m[col];
            for (x, p) in m[r][col..].iter_mut().zip(&pivot[col..]) {
                *x -= f * p;
            }
            v[r] -= f * v[col];
        }
    }
    let mut x = [0.0; 3];
    for r in (0..3).rev() {
        let mut t = v[r];
        for c in r + 1..3 {
            t -= m[r][c] * x[c];
        }
        x[r] = t / m[r][r];
    }
    x.iter().all(|t| t.is_finite()).then_some(x)
}

/// Weighted least squares of `y` on `1, x, x²`: `[q0, q1, q2]`.
pub fn weighted_quadratic(points: &[(f64, f64, f64)]) -> Option<[f64; 3]> {
    let mut m = [[0.0; 3]; 3];
    let mut v = [0.0; 3];
    for &(x, y, w) in points {
        let b = [1.0, x, x * x];
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] += w * b[i] * b[j];
            }
            v[i] += w * b[i] * y;
        }
    }
    solve3(m, v)
}

/// A Gaussian `a · exp(−(x − b)² / (2c²))`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gaussian {
    /// Height.
    pub a: f64,
    /// Centre.
    pub b: f64,
    /// Width (standard deviation), positive.
    pub c: f64,
}

impl Gaussian {
    /// Value at `x`.
    pub fn at(&self, x: f64) -> f64 {
        let d = (x - self.b) / self.c;
        self.a * (-0.5 * d * d).exp()
    }
}

/// Least-squares Gaussian through the points `(x, y)` (see the module
/// docs); `None` when the points do not determine one.
pub fn fit_gaussian(points: &[(f64, f64)]) -> Option<Gaussian> {
    // Start: ln y = q0 + q1 x + q2 x², weighted by y².
    let logs: Vec<(f64, f64, f64)> = points
        .iter()
        .filter(|p| p.1 > 0.0)
        .map(|&(x, y)| (x, y.ln(), y * y))
        .collect();
    let q = weighted_quadratic(&logs)?;
    if q[2] >= 0.0 {
        return None;
    }
    let c = (-0.5 / q[2]).sqrt();
    let b = q[1] * c * c;
    let a = (q[0] + b * b / (2.0 * c * c)).exp();
    let mut g = Gaussian { a, b, c };
    let sse = |g: &Gaussian| {
        points
            .iter()
            .map(|&(x, y)| (g.at(x) - y).powi(2))
            .sum::<f64>()
    };
    let mut err = sse(&g);
    let mut lambda = 1e-3;
    for _ in 0..200 {
        // Normal equations of the linearised problem, J^T J and J^T r.
        let mut jtj = [[0.0; 3]; 3];
        let mut jtr = [0.0; 3];
        for &(x, y) in points {
            let d = (x - g.b) / g.c;
            let e = (-0.5 * d * d).exp();
            let jac = [e, g.a * e * d / g.c, g.a * e * d * d / g.c];
            let r = y - g.a * e;
            for i in 0..3 {
                for j in 0..3 {
                    jtj[i][j] += jac[i] * jac[j];
                }
                jtr[i] += jac[i] * r;
            }
        }
        let mut improved = false;
        while lambda < 1e12 {
            let mut m = jtj;
            for (i, row) in m.iter_mut().enumerate() {
                row[i] += lambda * jtj[i][i];
            }
            let Some(step) = solve3(m, jtr) else {
                lambda *= 10.0;
                continue;
            };
            let trial = Gaussian {
                a: g.a + step[0],
                b: g.b + step[1],
                c: (g.c + step[2]).abs(),
            };
            let e = sse(&trial);
            if e < err {
                let gain = err - e;
                g = trial;
                err = e;
                lambda = (lambda / 10.0).max(1e-12);
                improved = gain > err * 1e-12;
                break;
            }
            lambda *= 10.0;
        }
        if !improved {
            break;
        }
    }
    Some(g)
}

/// The unweighted quadratic in log10 over the bins from the mode to the
/// maximum (see the module docs): `log10 p ≈ q0 + q1 x + q2 x²`.
pub fn fit_log_quadratic(h: &Histogram) -> Option<[f64; 3]> {
    let mode = (0..BINS).max_by_key(|&n| (h.counts[n], std::cmp::Reverse(n)))?;
    let points: Vec<(f64, f64, f64)> = (mode..=h.max())
        .filter(|&n| h.counts[n] > 0)
        .map(|n| (n as f64, h.p(n).log10(), 1.0))
        .collect();
    weighted_quadratic(&points)
}

/// The article's two fits of a histogram.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fits {
    /// The Gaussian through the probabilities.
    pub gaussian: Option<Gaussian>,
    /// `[q0, q1, q2]` of log10 p right of the mode.
    pub log_quadratic: Option<[f64; 3]>,
}

impl Fits {
    /// Both fits of `h`.
    pub fn of(h: &Histogram) -> Fits {
        let points: Vec<(f64, f64)> = (0..=h.max()).map(|n| (n as f64, h.p(n))).collect();
        Fits {
            gaussian: fit_gaussian(&points),
            log_quadratic: fit_log_quadratic(h),
        }
    }

    /// The quadratic's log10 p at `x`.
    pub fn log10_at(&self, x: f64) -> Option<f64> {
        self.log_quadratic.map(|q| q[0] + q[1] * x + q[2] * x * x)
    }
}

/// Jewel count the plot's x axis reaches at least: a full visible field.
pub const PLOT_X_MAX: usize = VISIBLE_CELLS;

/// An SVG line chart of log10(probability) against the jewel count, with
/// the two fits drawn over it: the Gaussian (its log10, dashed) and the
/// log10 quadratic (solid, extrapolated to a full field).
pub fn svg_log_plot(h: &Histogram, title: &str) -> String {
    let (w, ht) = (760.0, 480.0);
    let (left, right, top, bottom) = (70.0, 20.0, 40.0, 50.0);
    let fits = Fits::of(h);
    let xmax = (h.max().max(PLOT_X_MAX) + 2) as f64;
    let points: Vec<(f64, f64)> = (0..BINS)
        .filter(|&n| h.counts[n] > 0)
        .map(|n| (n as f64, h.p(n).log10()))
        .collect();
    // The quadratic from the mode to the right edge; the Gaussian where its
    // log10 stays on the chart.
    let mode = (0..BINS)
        .max_by_key(|&n| (h.counts[n], std::cmp::Reverse(n)))
        .unwrap_or(0);
    let steps = 200;
    let quad: Vec<(f64, f64)> = (0..=steps)
        .filter_map(|i| {
            let x = mode as f64 + (xmax - mode as f64) * i as f64 / steps as f64;
            fits.log10_at(x).map(|y| (x, y))
        })
        .collect();
    let data_min = points
        .iter()
        .chain(&quad)
        .map(|p| p.1)
        .fold(0.0f64, f64::min);
    let ymin = data_min.floor().min(-1.0);
    let gauss: Vec<(f64, f64)> = match fits.gaussian {
        Some(g) => (0..=steps)
            .map(|i| xmax * i as f64 / steps as f64)
            .map(|x| (x, g.at(x).log10()))
            .filter(|&(_, y)| y.is_finite() && y >= ymin)
            .collect(),
        None => Vec::new(),
    };
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
    let curve = |pts: &[(f64, f64)]| -> String {
        pts.iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    if !gauss.is_empty() {
        let _ = writeln!(
            s,
            r##"<polyline points="{}" fill="none" stroke="#2e9e44" stroke-width="1.5" stroke-dasharray="6 4"/>"##,
            curve(&gauss)
        );
    }
    if !quad.is_empty() {
        let _ = writeln!(
            s,
            r##"<polyline points="{}" fill="none" stroke="#c8321e" stroke-width="1.5"/>"##,
            curve(&quad)
        );
    }
    // Legend, top right.
    let lx = w - right - 430.0;
    let mut ly = top + 18.0;
    let mut legend = vec![("#1f5fbf", "", "measured".to_string())];
    if let Some(g) = fits.gaussian {
        legend.push((
            "#2e9e44",
            "6 4",
            format!("Gaussian fit, centre {:.3}, width {:.3}", g.b, g.c),
        ));
    }
    if let (Some(q), Some(y78)) = (fits.log_quadratic, fits.log10_at(78.0)) {
        legend.push((
            "#c8321e",
            "",
            format!(
                "log10 quadratic ({:.3} {:+.4}x {:+.6}x²); x=78: {:.2}",
                q[0], q[1], q[2], y78
            ),
        ));
    }
    for (colour, dash, text) in legend {
        let _ = writeln!(
            s,
            r##"<line x1="{lx:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{:.1}" y="{:.1}">{}</text>"##,
            ly - 4.0,
            lx + 24.0,
            ly - 4.0,
            lx + 30.0,
            ly,
            xml_escape(&text)
        );
        ly += 18.0;
    }
    s.push_str("</svg>\n");
    s
}

fn xml_escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
