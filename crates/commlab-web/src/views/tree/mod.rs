//! The reduction-tree view: binomial reduce, broadcast, allreduce and butterfly, PRAM or message passing.
//!
//! - [`params`]: the view's state, URL fields and engine request;
//! - [`view`]: the component.

pub mod params;
pub mod view;

use super::Page;
use leptos::prelude::*;

/// The view on the page.
pub const PAGE: Page = |params, dark| view! { <view::TreeView params=params dark=dark /> }.into_any();
