//! The layout lock's compile errors, pinned by their messages: each `tests/ui/*.rs` is a
//! breaking edit of a published header (or a member type that cannot be one) that must not
//! compile, and its `.stderr` is the exact error the compiler prints, naming the struct and the
//! member. A doc test's `compile_fail` checks only that compilation fails, at most with an error
//! code, whatever the message says.
//!
//! The `.stderr` files hold rustc 1.95's wording, which other Rust releases change (the E0080
//! text of a failed `const` assertion did), so the test runs on 1.95 only and is reported as
//! ignored elsewhere. To move it to another compiler, or after changing a message on purpose,
//! re-record the files with `TRYBUILD=overwrite cargo test -p se-abi-ui`, review the diff, and
//! update the version below.

#[rustversion::attr(
    not(stable(1.95)),
    ignore = "the .stderr files hold rustc 1.95's messages; see crates/se-abi/ui/tests/layout_lock.rs to re-record them"
)]
#[test]
fn layout_lock_errors_name_the_member() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
