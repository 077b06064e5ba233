//! The expansion's inner loop, written once for every way of running a
//! depth: the kernel on one machine ([`super::kernel`]) and each worker of
//! the sharded search ([`crate::distributed`]).
//!
//! For one parent: the adversary gives its piece (reading the beam's
//! history), the children of that piece are left in a buffer the caller
//! reuses, the evaluator costs them in one batch call, each is counted in
//! the distinct-children sketch, and those that do not cost more than the
//! bar (the cost above which no child can make the cut) are offered on.
//! Where an offer goes is the caller's: the kernel batches them into its
//! shared bounded set, a sharded worker sends each to the worker that owns
//! its well. Both therefore cost, count and drop exactly the same children.
//!
//! Plain data, no allocation per parent: the buffers live in [`Scratch`],
//! which a thread carries from parent to parent.

use std::sync::atomic::AtomicU32;

use super::adversary::{Adversary, BeamHistory};
use super::bounded::Candidate;
use super::distinct::Distinct;
use crate::evaluate::Evaluator;
use crate::movegen::{Child, MoveGen};
use crate::run::store::Stored;
use crate::well::{well_hash, Well};

/// What expanding a parent needs: the same for every parent of a depth.
#[derive(Clone, Copy)]
pub(crate) struct ParentStep<'a> {
    /// Ranks the children.
    pub eval: &'a dyn Evaluator,
    /// Gives each parent its piece.
    pub adversary: Adversary,
    /// The beam's history, for an adversary that keeps one.
    pub history: Option<&'a BeamHistory>,
    /// One slot per beam entry for the state its children inherit (empty
    /// unless the adversary keeps per-entry states).
    pub next: &'a [AtomicU32],
}

/// What a thread carries from parent to parent: its counts, its
/// distinct-count sketch, and the buffers it reuses.
pub(crate) struct Scratch {
    /// Children generated.
    pub children: u64,
    /// The distinct children seen (an estimate).
    pub distinct: Distinct,
    buf: Vec<Child>,
    costs: Vec<f64>,
}

impl Scratch {
    pub(crate) fn new() -> Scratch {
        Scratch {
            children: 0,
            distinct: Distinct::default(),
            buf: Vec::with_capacity(128),
            costs: Vec::with_capacity(128),
        }
    }
}

impl ParentStep<'_> {
    /// Expands `parent`, entry `index` of the beam after `depth` pieces:
    /// counts its children into `s`, and offers each that does not cost
    /// more than `worst()` (read once per child, so a bar lowered meanwhile
    /// takes effect at once) as a [`Candidate`], with its well.
    #[inline]
    pub(crate) fn expand(
        &self,
        parent: &Stored,
        index: u32,
        depth: u32,
        s: &mut Scratch,
        worst: impl Fn() -> f64,
        mut offer: impl FnMut(&Well, Candidate),
    ) {
        let gen = MoveGen::new(&parent.well);
        self.adversary.give(
            &gen,
            depth,
            index as usize,
            self.history,
            self.next,
            &mut s.buf,
        );
        self.eval
            .costs(&parent.well, u32::from(parent.score), &s.buf, &mut s.costs);
        s.children += s.buf.len() as u64;
        for (c, &cost) in s.buf.iter().zip(&s.costs) {
            s.distinct.insert(well_hash(&c.well));
            if cost > worst() {
                continue;
            }
            let candidate = Candidate {
                cost,
                well: c.well.pack(),
                parent: index,
            };
            offer(&c.well, candidate);
        }
    }
}
