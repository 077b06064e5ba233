//! The beam a depth expands: its depth file, or the wells the depth before
//! kept, still in memory while that file is being written.
//!
//! Expanding a beam straight from the kept wells is what lets the depth
//! loop write a depth's file alongside the next depth's expansion instead
//! of before it (see [`super`]). Both sources give the kernel the same
//! entries in the same blocks, so the search cannot tell them apart: a
//! block of the kept wells is exactly what the depth file's block of the
//! same number decodes to. The wells are held packed (20 bytes each, not
//! the 32 of a kept candidate): a beam's score follows from its wells and
//! depth, and the parents have gone to the history by then.

use rayon::prelude::*;

use super::bounded::score_at;
use crate::run::store::{self, DepthFile, StoreError, Stored};
use crate::well::PackedWell;

/// A beam, sorted by well, read a block of [`store::BLOCK`] entries at a
/// time.
#[derive(Clone, Copy)]
pub enum Beam<'a> {
    /// Read back from its depth file.
    File(&'a DepthFile),
    /// The wells the depth before kept, sorted by well, making up the beam
    /// after `depth` pieces.
    Kept {
        /// The kept wells.
        wells: &'a [PackedWell],
        /// Pieces placed in each of them.
        depth: u32,
    },
}

impl Beam<'_> {
    /// Entries.
    pub fn len(&self) -> usize {
        match self {
            Beam::File(f) => f.len(),
            Beam::Kept { wells, .. } => wells.len(),
        }
    }

    /// Whether it holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pieces placed in every entry.
    pub fn depth(&self) -> u32 {
        match self {
            Beam::File(f) => f.depth(),
            Beam::Kept { depth, .. } => *depth,
        }
    }

    /// Blocks.
    pub fn blocks(&self) -> usize {
        match self {
            Beam::File(f) => f.blocks(),
            Beam::Kept { wells, .. } => wells.len().div_ceil(store::BLOCK),
        }
    }

    /// Block `b`'s entries: those from `b × BLOCK` on.
    pub fn block(&self, b: usize) -> Result<Vec<Stored>, StoreError> {
        match *self {
            Beam::File(f) => f.block(b),
            Beam::Kept { wells, depth } => {
                let end = wells.len().min((b + 1) * store::BLOCK);
                Ok(wells[b * store::BLOCK..end]
                    .iter()
                    .map(|w| stored(w, depth))
                    .collect())
            }
        }
    }

    /// Every entry (run inside the caller's thread pool).
    pub fn read_all(&self) -> Result<Vec<Stored>, StoreError> {
        match *self {
            Beam::File(f) => f.read_all(),
            Beam::Kept { wells, depth } => Ok(wells.par_iter().map(|w| stored(w, depth)).collect()),
        }
    }
}

/// A kept well as its depth file stores it.
fn stored(well: &PackedWell, depth: u32) -> Stored {
    Stored {
        well: well.unpack(),
        score: score_at(well, depth),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::MoveGen;
    use crate::piece::Piece;
    use crate::run::store::{write_depth_file, Entry, Link};
    use crate::well::Well;

    /// Every well two pieces from the empty one, whatever the pieces:
    /// more than a block of them, sorted by well.
    fn wells_after_two_pieces() -> Vec<PackedWell> {
        let mut wells = vec![Well::EMPTY];
        let mut buf = Vec::new();
        for _ in 0..2 {
            let mut next = Vec::new();
            for w in &wells {
                let gen = MoveGen::new(w);
                for piece in Piece::ALL {
                    buf.clear();
                    gen.children(piece, &mut buf);
                    next.extend(buf.iter().map(|c| c.well));
                }
            }
            next.sort_unstable_by_key(|w| w.pack());
            next.dedup();
            wells = next;
        }
        wells.iter().map(Well::pack).collect()
    }

    #[test]
    fn kept_wells_read_as_the_depth_file_they_are_written_as() {
        let wells = wells_after_two_pieces();
        assert!(wells.len() > 2 * store::BLOCK, "{} wells", wells.len());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("depth-00002.beam");
        write_depth_file(&path, 2, Link::default(), wells.len(), |i| Entry {
            well: wells[i],
            score: score_at(&wells[i], 2),
        })
        .unwrap();
        let file = DepthFile::open(&path).unwrap();
        let disk = Beam::File(&file);
        let memory = Beam::Kept {
            wells: &wells,
            depth: 2,
        };
        assert_eq!(memory.len(), disk.len());
        assert_eq!(memory.depth(), disk.depth());
        assert_eq!(memory.blocks(), disk.blocks());
        for b in 0..disk.blocks() {
            assert_eq!(
                memory.block(b).unwrap(),
                disk.block(b).unwrap(),
                "block {b}"
            );
        }
        assert_eq!(memory.read_all().unwrap(), disk.read_all().unwrap());
    }
}
