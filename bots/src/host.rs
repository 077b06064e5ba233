//! The host a bot plays through (stub: being written in part 2).
