//! The Hidamari play loop allocates nothing once the bot exists.
//!
//! This is its own test binary, not a module of `tests.rs`, because a
//! `#[global_allocator]` replaces the allocator of the whole binary: kept apart, it
//! cannot slow or disturb the other tests. The counter is also per thread, so even
//! the test harness's own allocations on other threads are not counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use bots::hidamari::search::{Bot, HidamariWeights};
use bots::hidamari::sim::Game;

struct Counting;

thread_local! {
    // A const initialiser with no destructor: touching it never allocates.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator, which upholds
// the `GlobalAlloc` contract; the only extra work is a thread-local counter bump,
// which neither allocates nor unwinds.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: same layout contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn hidamari_play_loop_allocates_nothing() {
    let mut bot = Bot::new(HidamariWeights::ARTICLE);
    let mut game = Game::new(11);
    let before = allocations();
    bot.play(&mut game, 2000);
    let after = allocations();
    assert!(game.pieces > 100, "the game ran ({} pieces)", game.pieces);
    assert_eq!(
        after - before,
        0,
        "allocations during {} moves",
        game.pieces
    );
    // The counter works: building a bot allocates its arena.
    let before = allocations();
    let other = Bot::new(HidamariWeights::ARTICLE);
    assert!(allocations() > before);
    drop(other);
}
