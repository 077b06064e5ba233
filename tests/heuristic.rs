//! The knewjade heuristic: each term on hand-drawn wells, the weights file,
//! the quiescent lookahead, and every fast term against a naive twin on
//! random reachable wells.

use std::path::{Path, PathBuf};

use hatetris::evaluate::Evaluator;
use hatetris::heuristic::terms::{
    deepest_after_clear, deepest_without_clear, left_column_height, right_column_height,
    s_surface_height, s_unreachable_open_cells,
};
use hatetris::heuristic::{
    self, enclosed_holes, erasability, erasable, holes, lines_with_enclosed_holes, surface_bottom,
    surface_height, terms, terms_with, terms_with_reach, HoleRegion, Knewjade, Weights,
    WeightsError,
};
use hatetris::movegen::MoveGen;
use hatetris::reference;
use hatetris::well::{Board, BAR, FULL_ROW, HEIGHT, WIDTH};
use hatetris::{Piece, Well};
use proptest::prelude::*;

fn well(drawing: &str) -> Well {
    drawing.parse().expect("a valid drawing")
}

/// Erasability as a string of the pieces that can clear, in S Z O I L J T order.
fn clearers(w: &Well) -> String {
    Piece::ALL
        .iter()
        .filter(|p| erasability(w)[p.index()])
        .map(|p| p.letter())
        .collect()
}

fn weights_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/weights/dnf-86.toml")
}

// ---------------------------------------------------------------- holes

#[test]
fn overhang_is_a_hole_but_not_enclosed() {
    // The two cells under the overhang are reachable from column 3.
    let w = well(
        "###.......
         #.........",
    );
    assert_eq!(holes(&w), 2);
    assert_eq!(enclosed_holes(&w), 0);
    assert_eq!(lines_with_enclosed_holes(&w), 0);
}

#[test]
fn every_empty_cell_under_a_block_is_a_hole_however_deep() {
    let w = well(
        "..#.......
         ..........
         ..........",
    );
    assert_eq!(holes(&w), 2);
    assert_eq!(enclosed_holes(&w), 0);
}

#[test]
fn empty_cells_beside_a_stack_are_not_holes() {
    let w = well(
        "#........#
         ##......##
         ###....###",
    );
    assert_eq!(holes(&w), 0);
    assert_eq!(holes(&Well::EMPTY), 0);
}

#[test]
fn holes_count_cells_not_columns() {
    // Column 1 has two holes under one block, column 4 one.
    let w = well(
        ".#..#.....
         ..........
         #...#.....",
    );
    assert_eq!(holes(&w), 2 + 1);
}

// ------------------------------------------------------- enclosed holes

#[test]
fn cavity_under_a_roof_is_enclosed() {
    let w = well(
        ".#####....
         .#...#....
         .#####....",
    );
    assert_eq!(holes(&w), 3);
    assert_eq!(enclosed_holes(&w), 3);
    assert_eq!(lines_with_enclosed_holes(&w), 1);
}

#[test]
fn pocket_reachable_only_by_moving_up_is_enclosed() {
    // (18, 0) is empty with its only open neighbour below it: the block
    // would have to move up. The bottom row is reached from column 2.
    let w = well(
        "##........
         .#........
         ..........",
    );
    assert_eq!(holes(&w), 3);
    assert_eq!(enclosed_holes(&w), 1);
    assert_eq!(lines_with_enclosed_holes(&w), 1);
    assert_eq!(heuristic::surface(&w)[19 - BAR], 0b11_1111_1111);
    assert_eq!(heuristic::surface(&w)[18 - BAR], 0b11_1111_1100);
}

#[test]
fn empty_well_has_no_enclosed_holes() {
    assert_eq!(enclosed_holes(&Well::EMPTY), 0);
    assert_eq!(heuristic::surface(&Well::EMPTY), [FULL_ROW; 16]);
}

// -------------------------------------------- lines with enclosed holes

#[test]
fn two_enclosed_holes_in_one_line_count_as_one_line() {
    let w = well(
        "#########.
         #.##.####.
         #########.",
    );
    assert_eq!(enclosed_holes(&w), 2);
    assert_eq!(lines_with_enclosed_holes(&w), 1);
}

#[test]
fn one_enclosed_hole_in_each_of_two_lines_counts_two_lines() {
    let w = well(
        "#########.
         #.#######.
         ####.####.",
    );
    assert_eq!(enclosed_holes(&w), 2);
    assert_eq!(lines_with_enclosed_holes(&w), 2);
}

#[test]
fn two_buried_lines_cost_more_than_one_with_the_same_holes() {
    let one = well(
        "#########.
         #.##.####.
         #########.",
    );
    let two = well(
        "#########.
         #.#######.
         ####.####.",
    );
    let eval = Knewjade::default();
    let extra = eval.cost(&two, f64::from(0)) - eval.cost(&one, f64::from(0));
    assert!((extra - Weights::dnf86().lines_with_enclosed_holes).abs() < 1e-9);
}

#[test]
fn overhang_adds_no_enclosed_line() {
    let w = well(
        "####......
         #.........",
    );
    assert_eq!(lines_with_enclosed_holes(&w), 0);
}

// ------------------------------------------------------- surface height

#[test]
fn empty_well_surface_height_is_the_bottom_row() {
    assert_eq!(surface_height(&Well::EMPTY), 19);
    assert_eq!(surface_bottom(&Well::EMPTY), 19);
}

#[test]
fn surface_height_is_the_lowest_row_a_dropped_block_reaches() {
    // Row 17 is open in columns 0-2 (no S or Z can fill a 3-wide gap); the
    // rows below are sealed.
    let w = well(
        "...#######
         #####.####
         ####.#####",
    );
    assert_eq!(surface_bottom(&w), 17);
    assert_eq!(surface_height(&w), 17);
}

#[test]
fn holes_below_the_surface_bottom_do_not_change_surface_height() {
    let a = well(
        "...#######
         #####.####
         ####.#####",
    );
    let b = well(
        "...#######
         ###.#.####
         .#.#.#.#.#",
    );
    assert_ne!(holes(&a), holes(&b));
    assert_eq!(surface_height(&a), surface_height(&b));
}

#[test]
fn a_higher_surface_costs_more() {
    let low = well("...#######");
    let high = well(
        "...#######
         #####.####",
    );
    assert_eq!(surface_height(&low), 19);
    assert_eq!(surface_height(&high), 18);
    let t_low = terms(&low);
    let t_high = terms(&high);
    let w = Weights::dnf86();
    assert!(
        t_high.surface_height as f64 * w.surface_height
            > t_low.surface_height as f64 * w.surface_height
    );
}

#[test]
fn a_line_an_s_can_clear_opens_what_lies_below() {
    // Row 17's gap takes an S (bottom row of a flat S at columns 4-5);
    // clearing it opens column 1 of rows 18 and 19.
    let w = well(
        "####..####
         #.########
         #.########",
    );
    assert_eq!(surface_bottom(&w), 17);
    assert!(erasable(&w, Piece::S));
    assert_eq!(surface_height(&w), 19);
}

#[test]
fn with_the_lookahead_holes_an_s_or_z_clear_would_free_are_not_counted() {
    // The S clear of row 17 opens column 1 of rows 18 and 19: they deepen
    // the surface height either way, and are counted as holes only without
    // the lookahead.
    let freed = well(
        "####..####
         #.########
         #.########",
    );
    let plain = Knewjade::new(Weights::dnf86(), None);
    let q = Knewjade::new(Weights::dnf86(), Some(4));
    assert_eq!(plain.hole_region(), HoleRegion::DeepenedSurface);
    assert_eq!(q.hole_region(), HoleRegion::LowestSurface);
    let counted = plain.terms(&freed);
    assert_eq!(counted, terms(&freed));
    assert_eq!(counted.surface_height, 19);
    assert_eq!((counted.holes, counted.enclosed_holes), (2, 2));
    let t = q.terms(&freed);
    assert_eq!(t.surface_height, 19);
    let hole_terms = (t.holes, t.enclosed_holes, t.lines_with_enclosed_holes);
    assert_eq!(hole_terms, (0, 0, 0));
    // Down to the lowest surface row, holes count in both regions.
    let covered = well(
        "####.#####
         ###...####
         #.########",
    );
    assert_eq!(surface_bottom(&covered), 18);
    for region in [HoleRegion::DeepenedSurface, HoleRegion::LowestSurface] {
        let t = terms_with(&covered, region);
        assert_eq!((t.holes, t.enclosed_holes), (2, 0), "{region:?}");
    }
}

#[test]
fn a_line_only_z_can_clear_opens_what_lies_below() {
    // A gap against the right wall: a flat S would need column 10, a flat Z
    // fits with its top row at columns 7-8.
    let w = well(
        "########..
         #.########
         #.########",
    );
    assert!(!erasable(&w, Piece::S));
    assert!(erasable(&w, Piece::Z));
    assert_eq!(surface_bottom(&w), 17);
    assert_eq!(surface_height(&w), 19);
}

#[test]
fn a_line_only_an_i_can_clear_does_not_open_the_surface() {
    let w = well(
        "###....###
         #.########
         #.########",
    );
    assert_eq!(clearers(&w), "I");
    assert_eq!(surface_height(&w), 17);
}

// ----------------------------------------------------------- erasability

#[test]
fn erasability_lists_exactly_the_pieces_that_can_clear() {
    // A two-wide gap: flat S and Z, O, and the two-cell rows of L and J. T
    // has no two-cell bottom row and I has none at all.
    let w = well("####..####");
    assert_eq!(clearers(&w), "SZOLJ");
}

#[test]
fn a_well_only_l_j_and_t_can_clear() {
    // Only L, J and T have a three-cell box row; the gap is in the bottom
    // row, so it must be their bottom row.
    let w = well("###...####");
    assert_eq!(clearers(&w), "LJT");
    assert_eq!(
        terms(&w).erasable,
        [false, false, false, false, true, true, true]
    );
}

#[test]
fn a_four_wide_gap_only_an_i_can_clear() {
    let w = well("###....###");
    assert_eq!(clearers(&w), "I");
}

#[test]
fn a_gap_no_piece_can_reach_is_not_erasable() {
    let w = well(
        "....#.....
         ####.#####",
    );
    assert_eq!(clearers(&w), "");
    assert_eq!(well("..........").to_string(), Well::EMPTY.to_string());
    assert_eq!(clearers(&Well::EMPTY), "");
}

#[test]
fn erasability_of_each_piece_is_independent_of_the_others() {
    // T alone: if S, Z, ... were checked first and short-circuited, T would
    // be lost.
    let w = well(
        "###...####
         ####.#####",
    );
    for p in Piece::ALL {
        assert_eq!(
            erasable(&w, p),
            MoveGen::new(&w).can_clear(p),
            "piece {p} in\n{w}"
        );
    }
    assert!(erasable(&w, Piece::T));
}

// ----------------------------------------------------------------- score

#[test]
fn each_line_of_score_lowers_the_cost_by_its_weight() {
    let eval = Knewjade::default();
    let w = well("#.........");
    let d = eval.cost(&w, f64::from(3)) - eval.cost(&w, f64::from(0));
    assert!((d - 3.0 * -332.2211).abs() < 1e-9);
}

#[test]
fn score_appears_in_the_breakdown_with_its_weight() {
    let b = Knewjade::default().breakdown(&Well::EMPTY, 5);
    let row = b
        .terms
        .iter()
        .find(|r| r.term.starts_with("score"))
        .unwrap();
    assert_eq!(row.value, 5.0);
    assert_eq!(row.weight, -332.2211);
    assert!((row.contribution - 5.0 * -332.2211).abs() < 1e-9);
}

#[test]
fn the_total_is_the_sum_of_the_contributions() {
    let w = well(
        "##........
         .#..###...
         ..#.#.#...",
    );
    let eval = Knewjade::default();
    let b = eval.breakdown(&w, 2);
    let sum: f64 = b.terms.iter().map(|r| r.contribution).sum();
    assert!((sum - b.total).abs() < 1e-9);
    assert_eq!(b.total, eval.cost(&w, f64::from(2)));
    let text = heuristic::render_breakdown(&b);
    assert!(text.contains("lower is better"), "{text}");
    assert!(text.contains("holes"), "{text}");
}

#[test]
fn empty_well_cost_is_its_surface_height_and_score() {
    let w = Weights::dnf86();
    let eval = Knewjade::new(w, None);
    assert!((eval.cost(&Well::EMPTY, 1.0) - (19.0 * w.surface_height + w.score)).abs() < 1e-9);
}

// --------------------------------------------------------------- weights

#[test]
fn the_weights_file_equals_the_built_in_default() {
    assert_eq!(Weights::load(&weights_file()).unwrap(), Weights::dnf86());
    let text = std::fs::read_to_string(weights_file()).unwrap();
    assert!(text.contains("LOWER IS BETTER"));
}

#[test]
fn weights_round_trip_through_toml() {
    let mut w = Weights::dnf86();
    w.erasability[6] = 1.5;
    let back = Weights::parse(&w.to_toml(), Path::new("x.toml")).unwrap();
    assert_eq!(back, w);
}

fn bad(text: &str) -> String {
    let err = Weights::parse(text, Path::new("w.toml")).unwrap_err();
    let msg = err.to_string();
    assert!(!msg.contains('\n'), "one line: {msg}");
    assert!(msg.starts_with("w.toml: "), "names the file: {msg}");
    msg
}

fn good_text() -> String {
    std::fs::read_to_string(weights_file()).unwrap()
}

#[test]
fn unknown_weight_key_is_named() {
    let msg = bad(&good_text().replace("holes = 11.2106", "holes = 11.2106\nbumpiness = 2"));
    assert!(msg.contains("unknown key `bumpiness`"), "{msg}");
    let msg = bad(&good_text().replace("T = -83.7646", "T = -83.7646\nX = 1"));
    assert!(msg.contains("unknown key `erasability.X`"), "{msg}");
}

#[test]
fn missing_weight_key_is_named() {
    let msg = bad(&good_text().replace("score = -332.2211", ""));
    assert!(msg.contains("missing key `score`"), "{msg}");
    let msg = bad(&good_text().replace("J = -83.7646", ""));
    assert!(msg.contains("missing key `erasability.J`"), "{msg}");
}

#[test]
fn weight_that_is_not_a_number_is_named() {
    let msg = bad(&good_text().replace("holes = 11.2106", "holes = \"many\""));
    assert!(msg.contains("key `holes` must be a finite number"), "{msg}");
    let msg = bad(&good_text().replace("O = -83.7646", "O = true"));
    assert!(msg.contains("`erasability.O`"), "{msg}");
    let msg = bad("holes = [");
    assert!(msg.contains("not valid TOML"), "{msg}");
    assert!(matches!(
        Weights::load(Path::new("/nonexistent/w.toml")),
        Err(WeightsError::Read { .. })
    ));
}

#[test]
fn integer_weights_are_numbers() {
    let text = good_text().replace("holes = 11.2106", "holes = 11");
    assert_eq!(
        Weights::parse(&text, Path::new("w.toml")).unwrap().holes,
        11.0
    );
}

// ---------------------------------------------------- quiescent lookahead

#[test]
fn quiescent_follows_a_single_line_s_clear() {
    // A flat S clears row 18 and frees the enclosed hole below it.
    let w = well(
        "####..####
         #.########",
    );
    let plain = Knewjade::new(Weights::dnf86(), None);
    let q = Knewjade::new(Weights::dnf86(), Some(4));
    let b = q.breakdown(&w, 0);
    let chain = b.quiescent.as_ref().unwrap();
    assert!(chain.steps >= 1, "{}", heuristic::render_breakdown(&b));
    assert!(chain.pieces.starts_with('S'));
    assert!(q.cost(&w, f64::from(0)) < plain.cost(&w, f64::from(0)));
    // The hypothetical line counts half.
    let score = chain
        .terms
        .iter()
        .find(|r| r.term.starts_with("score"))
        .unwrap();
    assert_eq!(score.value, 0.5 * chain.steps as f64);
}

/// Weights that value nothing but score: every hypothetical line helps, so
/// the best point is the end of the longest chain and the chain's pieces can
/// be read off the breakdown.
fn score_only() -> Weights {
    Weights {
        holes: 0.0,
        enclosed_holes: 0.0,
        lines_with_enclosed_holes: 0.0,
        surface_height: 0.0,
        erasability: [0.0; 7],
        score: -1.0,
        ..Weights::dnf86()
    }
}

fn chain(w: &Well, depth: u8) -> (u8, String, f64) {
    let b = Knewjade::new(score_only(), Some(depth)).breakdown(w, 0);
    let q = b.quiescent.unwrap();
    (q.steps, q.pieces, q.total)
}

#[test]
fn quiescent_uses_z_where_s_would_clear_two_lines() {
    // A vertical S fills (17,4) (18,4) (18,5) (19,5) and clears rows 18 and
    // 19 at once, so the game would not give it; a flat Z clears row 18
    // alone. After it the hole at (19,5) is covered, so the chain ends.
    let w = well(
        "####..####
         #####.####",
    );
    assert_eq!(chain(&w, 4), (1, "Z".to_string(), -0.5));
}

#[test]
fn quiescent_uses_s_when_s_clears_only_single_lines() {
    let w = well("####..####");
    assert_eq!(chain(&w, 4), (1, "S".to_string(), -0.5));
}

#[test]
fn quiescent_stops_where_s_cannot_clear() {
    // Only an I clears: no chain, the lookahead changes nothing.
    let w = well(
        "###....###
         #.########",
    );
    let plain = Knewjade::new(Weights::dnf86(), None);
    let q = Knewjade::new(Weights::dnf86(), Some(4));
    assert_eq!(q.cost(&w, f64::from(2)), plain.cost(&w, f64::from(2)));
    assert_eq!(q.breakdown(&w, 2).quiescent.unwrap().steps, 0);
}

#[test]
fn quiescent_depth_caps_the_chain() {
    // Stacked two-wide gaps: S clears them one line at a time.
    let w = well(
        "####..####
         ####..####
         ####..####",
    );
    assert_eq!(chain(&w, 0).0, 0);
    assert_eq!(chain(&w, 1).0, 1);
    let (steps, pieces, total) = chain(&w, 4);
    assert!(steps >= 2, "{steps} {pieces}");
    assert!(pieces.chars().all(|c| c == 'S'), "{pieces}");
    assert_eq!(total, -0.5 * steps as f64, "lines in the chain count half");
    let plain = Knewjade::new(Weights::dnf86(), None).cost(&w, f64::from(0));
    assert_eq!(
        Knewjade::new(Weights::dnf86(), Some(0)).cost(&w, f64::from(0)),
        plain
    );
}

#[test]
fn quiescent_default_depth_is_no_cap() {
    // A clear removes six cells net and a well holds at most 144 cells.
    assert_eq!(
        hatetris::evaluate::DEFAULT_QUIESCENT_DEPTH,
        hatetris::evaluate::MAX_QUIESCENT_DEPTH
    );
    // Five single-line S clears in a row (found by a random search).
    let w = well(
        "#######..#
         ###..#####
         #..#######
         #######.##
         ##...#####
         ########..
         ..########",
    );
    assert_eq!(chain(&w, 3).0, 3);
    let (steps, pieces, total) = chain(&w, hatetris::evaluate::DEFAULT_QUIESCENT_DEPTH);
    assert_eq!((steps, pieces.as_str(), total), (5, "SSSSS", -2.5));
}

/// The piece of a chain step by brute force: the first of S Z O I L J T
/// none of whose live children clears two or more lines, if one of its
/// children clears exactly one.
fn naive_chain_piece(w: &Well) -> Option<Piece> {
    let gen = MoveGen::new(w);
    let mut children = Vec::new();
    for p in Piece::ALL {
        children.clear();
        gen.children(p, &mut children);
        match children.iter().map(|c| c.lines).max().unwrap_or(0) {
            0 => return None,
            1 => return Some(p),
            _ => {}
        }
    }
    None
}

// ---------------------------------------------------------- reach terms

#[test]
fn no_s_reaches_the_bottom_of_a_two_deep_one_wide_gap() {
    // A 1×1 block falls to row 19 in column 4; an S's lone bottom cell
    // (vertical) gets one row into the gap, not two.
    let w = well(
        "####.#####
         ####.#####",
    );
    assert_eq!(surface_bottom(&w), 19);
    assert_eq!(s_surface_height(&w), 18);
    assert_eq!(s_unreachable_open_cells(&w), 1);
}

#[test]
fn a_one_deep_gap_is_within_an_s_reach() {
    let w = well("####.#####");
    assert_eq!(s_surface_height(&w), 19);
    assert_eq!(s_unreachable_open_cells(&w), 0);
    assert_eq!(s_surface_height(&Well::EMPTY), 19);
}

#[test]
fn enclosed_holes_are_not_open_cells() {
    // The cell under the roof is enclosed, not open: it is not counted as
    // an open cell no S reaches.
    let w = well(
        "##########
         #.########",
    );
    assert_eq!(enclosed_holes(&w), 1);
    assert_eq!(s_unreachable_open_cells(&w), 0);
}

#[test]
fn column_heights_count_rows_from_the_bottom_to_the_highest_block() {
    let w = well(
        "#.........
         ..........
         ##...#####",
    );
    assert_eq!(left_column_height(&w), 3);
    assert_eq!(right_column_height(&w), 1);
    assert_eq!(left_column_height(&Well::EMPTY), 0);
    assert_eq!(right_column_height(&Well::EMPTY), 0);
}

#[test]
fn a_lock_that_clears_does_not_count_as_the_deepest_without_a_clear() {
    // Only a lock that fills column 9 reaches row 19, and every such lock
    // completes row 19.
    let w = well("#########.");
    assert_eq!(deepest_without_clear(&w), 18);
    assert_eq!(deepest_after_clear(&w), 19);
    assert_eq!(s_surface_height(&w), 19);
}

#[test]
fn no_clear_leaves_the_deepest_row_after_a_clear_at_zero() {
    assert_eq!(deepest_after_clear(&Well::EMPTY), 0);
    assert_eq!(deepest_without_clear(&Well::EMPTY), 19);
}

#[test]
fn reach_terms_are_computed_only_when_weighted() {
    let w = well("####.#####");
    let plain = Knewjade::new(Weights::dnf86(), None);
    assert_eq!(plain.terms(&w).reach, None);
    let mut weights = Weights::dnf86();
    weights.s_unreachable_open_cells = 5.0;
    let with = Knewjade::new(weights, None);
    assert!(with.terms(&w).reach.is_some());
    // A zero weight adds nothing: the cost is today's.
    weights.s_unreachable_open_cells = 0.0;
    weights.left_column_height = 1.0;
    let t = well(
        "..........
         .#########",
    );
    let left = Knewjade::new(weights, None);
    assert_eq!(left.cost(&t, 0.0), plain.cost(&t, 0.0));
    let u = well(
        "#.........
         #.########",
    );
    assert_eq!(left.cost(&u, 0.0), plain.cost(&u, 0.0) + 2.0);
}

#[test]
fn the_weights_file_takes_reach_weights_and_a_hole_region() {
    // Top-level keys go before the `[erasability]` table.
    let text = "s_unreachable_open_cells = 12.5\nhole_region = \"lowest-surface\"\n".to_string()
        + &std::fs::read_to_string(weights_file()).unwrap();
    let w = Weights::parse(&text, Path::new("t.toml")).unwrap();
    assert_eq!(w.s_unreachable_open_cells, 12.5);
    assert_eq!(w.hole_region, Some(HoleRegion::LowestSurface));
    assert_eq!(
        Weights::parse(&w.to_toml(), Path::new("t.toml")).unwrap(),
        w
    );
    assert_eq!(
        Knewjade::new(w, None).hole_region(),
        HoleRegion::LowestSurface
    );
    let bad = "hole_region = \"middle\"\n".to_string()
        + &std::fs::read_to_string(weights_file()).unwrap();
    let e = Weights::parse(&bad, Path::new("t.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("hole_region") && e.contains("lowest-surface"),
        "{e}"
    );
    // The default file round-trips without the optional keys.
    let d = Weights::dnf86().to_toml();
    assert!(!d.contains("hole_region") && !d.contains("column"), "{d}");
}

#[test]
fn every_weight_name_reads_and_writes_its_weight() {
    let mut w = Weights::dnf86();
    for (i, name) in heuristic::WEIGHT_NAMES.iter().enumerate() {
        assert!(w.set(name, i as f64 + 0.5), "{name}");
    }
    for (i, name) in heuristic::WEIGHT_NAMES.iter().enumerate() {
        assert_eq!(w.get(name), Some(i as f64 + 0.5), "{name}");
    }
    assert_eq!(w.get("nonsense"), None);
    assert_eq!(w.get("erasability.X"), None);
    // Every weight goes through the file and back (so every optional key
    // is one the file takes).
    assert_eq!(
        Weights::parse(&w.to_toml(), Path::new("t.toml")).unwrap(),
        w
    );
}

// ------------------------------------------------- naive twins, proptest

/// A small deterministic generator (xorshift64*), so the wells depend only
/// on the proptest seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A reachable well: `moves` random legal placements of random pieces from
/// the empty well, restarting when a piece has no live placement.
fn random_well(seed: u64, moves: usize) -> Well {
    let mut rng = Rng(seed | 1);
    let mut w = Well::EMPTY;
    let mut children = Vec::new();
    for _ in 0..moves {
        children.clear();
        MoveGen::new(&w).children(Piece::from_index(rng.below(7)), &mut children);
        if children.is_empty() {
            w = Well::EMPTY;
            continue;
        }
        w = children[rng.below(children.len())].well;
    }
    w
}

fn cell(b: &Board, r: usize, c: usize) -> bool {
    b[r] >> c & 1 == 1
}

fn naive_holes(b: &Board) -> u32 {
    naive_holes_down_to(b, HEIGHT - 1)
}

/// Holes in rows `0..=last` only.
fn naive_holes_down_to(b: &Board, last: usize) -> u32 {
    let mut n = 0;
    for c in 0..WIDTH {
        for r in 0..=last {
            if !cell(b, r, c) && (0..r).any(|a| cell(b, a, c)) {
                n += 1;
            }
        }
    }
    n
}

/// Breadth-first search of the 1×1 block from every cell of row 0.
fn naive_surface(b: &Board) -> [[bool; WIDTH]; HEIGHT] {
    let mut seen = [[false; WIDTH]; HEIGHT];
    let mut todo: Vec<(usize, usize)> = (0..WIDTH)
        .filter(|&c| !cell(b, 0, c))
        .map(|c| (0, c))
        .collect();
    while let Some((r, c)) = todo.pop() {
        if seen[r][c] {
            continue;
        }
        seen[r][c] = true;
        let mut next = vec![(r + 1, c)];
        if c > 0 {
            next.push((r, c - 1));
        }
        next.push((r, c + 1));
        for (nr, nc) in next {
            if nr < HEIGHT && nc < WIDTH && !cell(b, nr, nc) && !seen[nr][nc] {
                todo.push((nr, nc));
            }
        }
    }
    seen
}

// The naive twins index by (row, column) on purpose: they are the plain
// per-cell definitions the fast code is checked against.
#[allow(clippy::needless_range_loop)]
fn naive_enclosed(b: &Board) -> (u32, u32) {
    naive_enclosed_down_to(b, HEIGHT - 1)
}

/// Enclosed holes and lines with them in rows `0..=last` only.
#[allow(clippy::needless_range_loop)]
fn naive_enclosed_down_to(b: &Board, last: usize) -> (u32, u32) {
    let s = naive_surface(b);
    let mut cells = 0;
    let mut lines = 0;
    for r in 0..=last {
        let n = (0..WIDTH).filter(|&c| !cell(b, r, c) && !s[r][c]).count() as u32;
        cells += n;
        lines += (n > 0) as u32;
    }
    (cells, lines)
}

fn naive_bottom(b: &Board) -> u32 {
    let s = naive_surface(b);
    (0..HEIGHT)
        .rev()
        .find(|&r| s[r].iter().any(|&x| x))
        .unwrap() as u32
}

fn naive_clears(b: &Board, p: Piece) -> Vec<Board> {
    reference::outcomes(b, p)
        .into_iter()
        .filter(|o| o.lines > 0 && !o.is_game_over())
        .map(|o| o.board)
        .collect()
}

fn naive_surface_height(b: &Board) -> u32 {
    let mut best = naive_bottom(b);
    for p in [Piece::S, Piece::Z] {
        for child in naive_clears(b, p) {
            best = best.max(naive_bottom(&child));
        }
    }
    best
}

/// Every golden well: erasability and the S/Z exception of surface height
/// agree with the children the game's own code produced.
#[test]
fn erasability_and_surface_height_match_the_golden_children() {
    let records = crate::util::json_lines("movegen.jsonl.gz");
    let mut erasable_total = 0;
    for rec in &records {
        let b = crate::util::board(&rec["well"]);
        let w = Well::try_from_board(&b).unwrap();
        let t = terms(&w);
        let mut want_height = naive_bottom(&b);
        for p in Piece::ALL {
            let clears: Vec<Board> = rec["children"][p.letter().to_string()]
                .as_array()
                .unwrap()
                .iter()
                .filter(|pair| pair[1].as_u64().unwrap() > 0)
                .map(|pair| crate::util::board(&pair[0]))
                .filter(|child| child[BAR - 1] == 0)
                .collect();
            assert_eq!(
                t.erasable[p.index()],
                !clears.is_empty(),
                "piece {p}, well {w:?}"
            );
            erasable_total += !clears.is_empty() as usize;
            if matches!(p, Piece::S | Piece::Z) {
                for child in &clears {
                    want_height = want_height.max(naive_bottom(child));
                }
            }
        }
        assert_eq!(t.surface_height, want_height, "well {w:?}");
    }
    assert!(
        erasable_total > 1000,
        "the sample has clearing wells ({erasable_total})"
    );
}

/// Every cell some reachable position of `piece` covers (BFS from the spawn).
fn naive_reach(b: &Board, piece: Piece) -> [[bool; WIDTH]; HEIGHT] {
    let mut out = [[false; WIDTH]; HEIGHT];
    for pos in reference::Bfs::run(b, piece).positions() {
        for (r, &bits) in piece.shape(pos.o as usize).iter().enumerate() {
            for c in 0..4 {
                if bits >> c & 1 == 1 {
                    out[(pos.y + r as i32) as usize][(pos.x + c) as usize] = true;
                }
            }
        }
    }
    out
}

fn naive_s_surface_height(b: &Board) -> u32 {
    let reach = naive_reach(b, Piece::S);
    (0..HEIGHT)
        .rev()
        .find(|&r| reach[r].iter().any(|&x| x))
        .map_or(BAR as u32 - 1, |r| (r as u32).max(BAR as u32 - 1))
}

fn naive_s_unreachable(b: &Board) -> u32 {
    let reach = naive_reach(b, Piece::S);
    let surface = naive_surface(b);
    let mut n = 0;
    for r in BAR..HEIGHT {
        for c in 0..WIDTH {
            n += (surface[r][c] && !reach[r][c]) as u32;
        }
    }
    n
}

fn naive_column_height(b: &Board, c: usize) -> u32 {
    (0..HEIGHT)
        .find(|&r| cell(b, r, c))
        .map_or(0, |r| (HEIGHT - r) as u32)
}

fn naive_deepest_without_clear(b: &Board) -> u32 {
    let mut best = 0;
    for p in [Piece::S, Piece::Z] {
        let search = reference::Bfs::run(b, p);
        for pos in search.lock_positions() {
            let out = reference::lock(b, p, pos);
            if out.lines > 0 || out.is_game_over() {
                continue;
            }
            let shape = p.shape(pos.o as usize);
            let bottom = (0..4).rev().find(|&r| shape[r] != 0).unwrap();
            best = best.max((pos.y + bottom as i32) as u32);
        }
    }
    best
}

fn naive_deepest_after_clear(b: &Board) -> u32 {
    let mut best = 0;
    for p in [Piece::S, Piece::Z] {
        for child in naive_clears(b, p) {
            best = best.max(naive_bottom(&child));
        }
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn reach_terms_match_their_naive_twins(seed in any::<u64>(), moves in 0usize..60) {
        let w = random_well(seed, moves);
        let b = w.to_board();
        let r = terms_with_reach(&w, HoleRegion::DeepenedSurface).reach.expect("asked for");
        prop_assert_eq!(r.s_surface_height, naive_s_surface_height(&b));
        prop_assert_eq!(r.s_unreachable_open_cells, naive_s_unreachable(&b));
        prop_assert_eq!(r.left_column_height, naive_column_height(&b, 0));
        prop_assert_eq!(r.right_column_height, naive_column_height(&b, WIDTH - 1));
        prop_assert_eq!(r.deepest_without_clear, naive_deepest_without_clear(&b));
        prop_assert_eq!(r.deepest_after_clear, naive_deepest_after_clear(&b));
        prop_assert_eq!(s_surface_height(&w), r.s_surface_height);
        prop_assert_eq!(s_unreachable_open_cells(&w), r.s_unreachable_open_cells);
        prop_assert_eq!(deepest_without_clear(&w), r.deepest_without_clear);
        prop_assert_eq!(deepest_after_clear(&w), r.deepest_after_clear);
        // The other terms do not change when the reach terms are asked for.
        let plain = terms(&w);
        let mut full = terms_with_reach(&w, HoleRegion::DeepenedSurface);
        full.reach = None;
        prop_assert_eq!(full, plain);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn fast_terms_match_their_naive_twins(seed in any::<u64>(), moves in 0usize..60) {
        let w = random_well(seed, moves);
        let b = w.to_board();
        let t = terms(&w);
        // The term functions count the whole well; `terms` only the rows at
        // or above the surface height (holes further down are out of reach).
        let last = naive_surface_height(&b) as usize;
        // With the lookahead's region, only down to the lowest surface row
        // before the S/Z exception.
        let freed = terms_with(&w, HoleRegion::LowestSurface);
        let lowest = naive_bottom(&b) as usize;
        prop_assert_eq!(freed.holes, naive_holes_down_to(&b, lowest));
        let (cells, lines) = naive_enclosed_down_to(&b, lowest);
        prop_assert_eq!(freed.enclosed_holes, cells);
        prop_assert_eq!(freed.lines_with_enclosed_holes, lines);
        prop_assert_eq!(freed.surface_height, t.surface_height);
        prop_assert_eq!(freed.erasable, t.erasable);
        prop_assert_eq!(holes(&w), naive_holes(&b));
        prop_assert_eq!(t.holes, naive_holes_down_to(&b, last));
        let (cells, lines) = naive_enclosed(&b);
        prop_assert_eq!(enclosed_holes(&w), cells);
        prop_assert_eq!(lines_with_enclosed_holes(&w), lines);
        let (cells, lines) = naive_enclosed_down_to(&b, last);
        prop_assert_eq!(t.enclosed_holes, cells);
        prop_assert_eq!(t.lines_with_enclosed_holes, lines);
        prop_assert!(t.enclosed_holes <= t.holes, "every enclosed hole is a hole");
        prop_assert_eq!(surface_bottom(&w), naive_bottom(&b));
        prop_assert_eq!(t.surface_height, naive_surface_height(&b));
        prop_assert_eq!(surface_height(&w), t.surface_height);
        let gen = MoveGen::new(&w);
        for p in Piece::ALL {
            let want = !naive_clears(&b, p).is_empty();
            prop_assert_eq!(t.erasable[p.index()], want, "piece {}", p);
            prop_assert_eq!(gen.can_clear(p), want, "can_clear, piece {}", p);
            prop_assert_eq!(erasable(&w, p), want);
        }
        let bits: [u16; 16] = heuristic::surface(&w);
        let s = naive_surface(&b);
        for (i, &row) in bits.iter().enumerate() {
            for (c, &on_surface) in s[i + BAR].iter().enumerate() {
                prop_assert_eq!(row >> c & 1 == 1, on_surface);
            }
        }
    }

    #[test]
    fn quiescent_never_makes_a_well_look_worse(seed in any::<u64>(), moves in 0usize..60, score in 0u32..50) {
        let w = random_well(seed, moves);
        let plain = Knewjade::new(Weights::dnf86(), None).cost(&w, f64::from(score));
        let q = Knewjade::new(Weights::dnf86(), Some(3));
        let cost = q.cost(&w, f64::from(score));
        prop_assert!(cost <= plain);
        let b = q.breakdown(&w, score);
        prop_assert_eq!(b.total, cost);
        prop_assert!(b.quiescent.unwrap().steps <= 3);
    }

    #[test]
    fn quiescent_first_step_follows_the_game_rule(seed in any::<u64>(), moves in 0usize..60) {
        let w = random_well(seed, moves);
        let expected = naive_chain_piece(&w);
        let (steps, pieces, _) = chain(&w, 1);
        prop_assert_eq!(steps, expected.is_some() as u8);
        prop_assert_eq!(pieces, expected.map(|p| p.letter().to_string()).unwrap_or_default());
        // No chain is longer than 24 clears.
        let deep = Knewjade::new(score_only(), Some(24)).cost(&w, f64::from(0));
        prop_assert_eq!(Knewjade::new(score_only(), Some(hatetris::evaluate::MAX_QUIESCENT_DEPTH)).cost(&w, f64::from(0)), deep);
    }
}
