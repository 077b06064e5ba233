//! The evaluator seam: what the search asks of anything that ranks wells.
//!
//! An [`Evaluator`] gives a cost (lower is better) and an [`Identity`]. The
//! search calls it once per expanded parent, with all of that parent's
//! children ([`Evaluator::costs`]): siblings share every row but the few a
//! placement touches, so an evaluator that can reuse work between them (a
//! network updating its parent's accumulator) gets the chance, and one that
//! cannot falls back on the per-well [`Evaluator::cost`]. The call is
//! object-safe, so the search takes `&dyn Evaluator` and pays one indirect
//! call per parent, not per child.
//!
//! The identity goes into a run's settings: a run resumes only under an
//! evaluator with the same identity, since another would rank the same wells
//! differently.
//!
//! Implementations: the knewjade heuristic ([`crate::heuristic`]), and the
//! quiescent lookahead ([`Lookahead`]), which wraps any evaluator.

pub mod lookahead;

use serde::{Deserialize, Serialize};

use crate::movegen::Child;
use crate::well::Well;

pub use lookahead::{
    best_along_chain, ChainBest, Lookahead, DEFAULT_QUIESCENT_DEPTH, HYPOTHETICAL_LINE_WEIGHT,
    MAX_QUIESCENT_DEPTH,
};

/// One chain step's child (see [`Evaluator::chain_costs`]): the well, and
/// the live row of its parent that the step cleared (counted before the
/// clear).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainChild {
    /// The well after the clear.
    pub well: Well,
    /// The cleared row, 0 (top) to 15.
    pub cleared: u8,
}

/// What an evaluator keeps of a chain well to cost that well's children
/// faster: for a net, the well's first-layer sum. Opaque to everyone else:
/// the lookahead only keeps it and hands it back (see
/// [`Evaluator::chain_costs`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Memo(pub(crate) crate::nnue::quant::Acc);

/// Ranks wells for the search. Lower cost is better.
pub trait Evaluator: Sync {
    /// The cost of `well` reached with `score` lines cleared. The score may
    /// hold half lines: the lookahead counts hypothetical clears at half
    /// weight.
    fn cost(&self, well: &Well, score: f64) -> f64;

    /// The costs of the children of one parent well, whose score is
    /// `parent_score`: `out` is cleared, then `out[i]` is the cost of
    /// `children[i]` at `parent_score + children[i].lines`. The default
    /// calls [`Evaluator::cost`] for each; the values must equal it.
    fn costs(&self, parent: &Well, parent_score: u32, children: &[Child], out: &mut Vec<f64>) {
        let _ = parent;
        out.clear();
        out.extend(
            children
                .iter()
                .map(|c| self.cost(&c.well, f64::from(parent_score + u32::from(c.lines)))),
        );
    }

    /// [`Evaluator::costs`], and the memo of each child for
    /// [`Evaluator::chain_costs`] in `memos` (`memos[i]` for `children[i]`),
    /// or `memos` empty. The lookahead asks for them: a child it walks
    /// chains from is the parent of the first chain step. The default
    /// leaves `memos` empty.
    fn costs_with_memos(
        &self,
        parent: &Well,
        parent_score: u32,
        children: &[Child],
        out: &mut Vec<f64>,
        memos: &mut Vec<Memo>,
    ) {
        memos.clear();
        self.costs(parent, parent_score, children, out);
    }

    /// The costs of `children`, all at `score`: wells that each came from
    /// `parent` by one placement and one line clear (the lookahead's chain
    /// steps). `out` is cleared, then `out[i]` is the cost of
    /// `children[i].well`. The values must equal [`Evaluator::cost`]'s,
    /// which the default calls for each.
    ///
    /// An evaluator that can cost a well faster from its parent's state (a
    /// net, from its parent's first-layer sum) leaves each child's state in
    /// `memos` (`memos[i]` for `children[i]`) and is handed it back as
    /// `parent_memo` when that child's own children are costed; `None`
    /// when the caller has none for `parent`. The default leaves `memos`
    /// empty.
    fn chain_costs(
        &self,
        parent: &Well,
        parent_memo: Option<&Memo>,
        children: &[ChainChild],
        score: f64,
        out: &mut Vec<f64>,
        memos: &mut Vec<Memo>,
    ) {
        let _ = (parent, parent_memo);
        memos.clear();
        out.clear();
        out.extend(children.iter().map(|c| self.cost(&c.well, score)));
    }

    /// What this evaluator is: every parameter that changes a cost.
    fn identity(&self) -> Identity;

    /// The files a run folder keeps so that the evaluator can be rebuilt
    /// from the folder alone: `(name, bytes)`. A net gives its net file;
    /// the heuristic needs none (its weights are in the identity).
    fn files(&self) -> Vec<(String, Vec<u8>)> {
        Vec::new()
    }
}

impl<E: Evaluator + ?Sized> Evaluator for &E {
    fn cost(&self, well: &Well, score: f64) -> f64 {
        (**self).cost(well, score)
    }
    fn costs(&self, parent: &Well, parent_score: u32, children: &[Child], out: &mut Vec<f64>) {
        (**self).costs(parent, parent_score, children, out)
    }
    fn costs_with_memos(
        &self,
        parent: &Well,
        parent_score: u32,
        children: &[Child],
        out: &mut Vec<f64>,
        memos: &mut Vec<Memo>,
    ) {
        (**self).costs_with_memos(parent, parent_score, children, out, memos)
    }
    fn chain_costs(
        &self,
        parent: &Well,
        parent_memo: Option<&Memo>,
        children: &[ChainChild],
        score: f64,
        out: &mut Vec<f64>,
        memos: &mut Vec<Memo>,
    ) {
        (**self).chain_costs(parent, parent_memo, children, score, out, memos)
    }
    fn identity(&self) -> Identity {
        (**self).identity()
    }
    fn files(&self) -> Vec<(String, Vec<u8>)> {
        (**self).files()
    }
}

/// An evaluator's description, stored in a run's settings: a JSON object of
/// named parameters. A wrapper adds its own keys to its inner evaluator's.
///
/// Two identities are the same when they hold the same keys with the same
/// values, a key that is `null` counting as absent (so a run recorded
/// before a key existed still resumes when the key's value is `null`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Identity(serde_json::Map<String, serde_json::Value>);

impl Identity {
    /// An empty identity.
    pub fn new() -> Identity {
        Identity::default()
    }

    /// Adds (or replaces) one parameter.
    pub fn with(mut self, key: &str, value: impl Serialize) -> Identity {
        let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
        self.0.insert(key.to_string(), value);
        self
    }

    /// One parameter's value, if present and not `null`.
    pub fn get(&self, key: &str) -> Option<&serde_json::Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    /// The keys that are not `null`, sorted.
    fn present(&self) -> Vec<(&String, &serde_json::Value)> {
        let mut keys: Vec<_> = self.0.iter().filter(|(_, v)| !v.is_null()).collect();
        keys.sort_by(|a, b| a.0.cmp(b.0));
        keys
    }

    /// The parameters that differ from `other`'s: `(key, ours, theirs)`,
    /// `none` for an absent one, a nested one's key dotted. Empty when the
    /// two are the same (by [`crate::folder::differences`]' rule).
    pub fn differences(&self, other: &Identity) -> Vec<(String, String, String)> {
        crate::folder::differences(&self.0, &other.0)
            .into_iter()
            .map(|d| (d.key, d.recorded, d.asked))
            .collect()
    }

    /// The identity as one string that two equal identities share: the
    /// keys that are not `null`, sorted, with object keys sorted and every
    /// number as the shortest decimal of its `f64` (so `2`, `2.0` and `2e0`
    /// agree).
    pub fn canonical(&self) -> String {
        let mut out = String::new();
        for (k, v) in self.present() {
            out.push_str(k);
            out.push('=');
            out.push_str(&crate::folder::canonical(v));
            out.push(';');
        }
        out
    }
}

impl PartialEq for Identity {
    fn eq(&self, other: &Identity) -> bool {
        self.differences(other).is_empty()
    }
}

impl std::fmt::Display for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .present()
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        f.write_str(&parts.join(" "))
    }
}
