//! Holder crate for commlab's integration tests: the tests live in
//! `integration/` (one binary) and the browser suite in `e2e/`.
